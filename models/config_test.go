package models

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
)

// TestLoadFixtureConfigs parses the committed config.json of every
// llama.cpp fixture model (testdata/fixtures at the repository root).
func TestLoadFixtureConfigs(t *testing.T) {
	type want struct {
		arch                  string
		hidden, layers, heads int
		kv, headDim, vocab    int
		tie, bias, qkNorm     bool
		theta                 float64
		bos                   int
		eos                   []int
		rope                  *RopeScaling
	}
	cases := map[string]want{
		"tiny-llama":   {"LlamaForCausalLM", 64, 2, 4, 2, 16, 32000, false, false, false, 10000, 1, []int{2}, nil},
		"tiny-llama32": {"LlamaForCausalLM", 64, 2, 4, 1, 16, 128256, true, false, false, 500000, 128000, []int{128001}, &RopeScaling{"llama3", 32, 1, 4, 8192}},
		"tiny-qwen2":   {"Qwen2ForCausalLM", 32, 2, 4, 2, 8, 151669, true, true, false, 1e6, 151643, []int{151645}, nil},
		"tiny-qwen3":   {"Qwen3ForCausalLM", 48, 2, 4, 2, 16, 151669, true, false, true, 1e6, 151643, []int{151645}, nil},
	}
	for name, w := range cases {
		c, err := LoadConfig(testutil.Fixture(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := want{c.Arch(), c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim, c.VocabSize,
			c.TieWordEmbeddings, c.AttentionBias, c.QKNorm, c.RopeTheta, c.BOSTokenID, c.EOSTokenIDs, c.RopeScaling}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
		if c.TorchDType != "float32" || c.SlidingWindow != 0 || c.Raw["model_type"] != c.ModelType {
			t.Errorf("%s: dtype %q, sliding window %d, raw model_type %v", name, c.TorchDType, c.SlidingWindow, c.Raw["model_type"])
		}
	}
}

// parse runs ParseConfig on a tiny llama config with edits applied.
func parse(t *testing.T, edit func(s string) string) (*Config, error) {
	t.Helper()
	base := `{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
"intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "eos_token_id": 2}`
	return ParseConfig("dir/config.json", []byte(edit(base)))
}

func TestConfigDefaults(t *testing.T) {
	c, err := parse(t, func(s string) string { return s })
	if err != nil {
		t.Fatal(err)
	}
	if c.NumKeyValueHeads != 4 || c.HeadDim != 16 || c.RMSNormEps != 1e-6 || c.RopeTheta != 10000 ||
		c.MaxPositionEmbeddings != 2048 || c.BOSTokenID != -1 || !reflect.DeepEqual(c.EOSTokenIDs, []int{2}) {
		t.Errorf("defaults: %+v", c)
	}
	c, err = parse(t, func(s string) string {
		return strings.Replace(s, `"eos_token_id": 2`, `"eos_token_id": [128001, 128009], "rope_scaling": {"type": "linear", "factor": 2.0}`, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.EOSTokenIDs, []int{128001, 128009}) || c.RopeScaling == nil || c.RopeScaling.Type != "linear" {
		t.Errorf("eos list / old rope key: %+v %+v", c.EOSTokenIDs, c.RopeScaling)
	}
	c, err = parse(t, func(s string) string {
		return strings.Replace(s, `"LlamaForCausalLM"], "model_type": "llama"`, `"Qwen2ForCausalLM"], "model_type": "qwen2", "use_sliding_window": true, "sliding_window": 64, "max_window_layers": 1`, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !c.AttentionBias || c.AttentionOutputBias || c.SlidingWindow != 64 || c.MaxWindowLayers != 1 {
		t.Errorf("qwen2: bias %v/%v window %d/%d", c.AttentionBias, c.AttentionOutputBias, c.SlidingWindow, c.MaxWindowLayers)
	}
	c, err = parse(t, func(s string) string {
		return strings.Replace(s, `"hidden_size": 64`, `"hidden_size": 64, "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}`, 1)
	})
	if err != nil || c.RopeTheta != 500000 || c.RopeScaling != nil {
		t.Errorf("transformers 5 rope_parameters: %v %+v", err, c)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"unknown arch", `"LlamaForCausalLM"`, `"GPTNeoXForCausalLM"`, `architecture "GPTNeoXForCausalLM" is not supported; supported: [Gemma2ForCausalLM`},
		{"no arch", `["LlamaForCausalLM"]`, `[]`, "architectures is missing"},
		{"malformed", `"vocab_size": 100,`, `"vocab_size": 100,,`, "dir/config.json:2:"},
		{"wrong type", `"hidden_size": 64`, `"hidden_size": "64"`, "field hidden_size must be int"},
		{"missing vocab", `"vocab_size": 100,`, ``, "vocab_size is missing"},
		{"kv heads", `"vocab_size": 100`, `"vocab_size": 100, "num_key_value_heads": 3`, "multiple of num_key_value_heads (3)"},
		{"heads vs hidden", `"hidden_size": 64`, `"hidden_size": 66`, "hidden_size (66) must be divisible by num_attention_heads (4)"},
		{"rope yarn", `"vocab_size": 100`, `"vocab_size": 100, "rope_scaling": {"rope_type": "yarn", "factor": 4}`, `rope_scaling type "yarn" is not supported`},
		{"llama3 factors", `"vocab_size": 100`, `"vocab_size": 100, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}`, "low_freq_factor < high_freq_factor"},
		{"llama3 original", `"vocab_size": 100`, `"vocab_size": 100, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4}`, "original_max_position_embeddings"},
		{"gelu", `"vocab_size": 100`, `"vocab_size": 100, "hidden_act": "gelu"`, `hidden_act "gelu"`},
		{"eos string", `"eos_token_id": 2`, `"eos_token_id": "2"`, "eos_token_id must be an integer"},
		{"truncated", `"eos_token_id": 2}`, `"eos_token_id": 2`, "malformed JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, func(s string) string {
				if !strings.Contains(s, tc.old) {
					t.Fatalf("test edit %q does not apply", tc.old)
				}
				return strings.Replace(s, tc.old, tc.new, 1)
			})
			if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), "dir/config.json") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v: want bad input naming dir/config.json containing %q", err, tc.want)
			}
		})
	}
	if _, err := LoadConfig(t.TempDir()); err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), "config.json: no such file") {
		t.Errorf("missing config.json: %v", err)
	}
}
