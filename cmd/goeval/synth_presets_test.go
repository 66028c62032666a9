package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/goeval/goeval/synth"
)

// TestSynthLlamaPresets: the config.json of each Llama preset has the
// values of the real checkpoint's config.json (meta-llama's Llama-3.2-1B,
// Llama-3.2-3B and Llama-3.1-8B), and flags still override a preset.
func TestSynthLlamaPresets(t *testing.T) {
	common := map[string]any{"architectures": []any{"LlamaForCausalLM"}, "model_type": "llama", "vocab_size": 128256.0,
		"rope_theta": 500000.0, "rms_norm_eps": 1e-5, "max_position_embeddings": 131072.0,
		"bos_token_id": 128000.0, "eos_token_id": 128001.0, "hidden_act": "silu", "attention_bias": false, "mlp_bias": false}
	scaling := func(factor float64) map[string]any {
		return map[string]any{"rope_type": "llama3", "factor": factor, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
			"original_max_position_embeddings": 8192.0}
	}
	for name, want := range map[string]map[string]any{
		"llama3.2-1b": {"hidden_size": 2048.0, "num_hidden_layers": 16.0, "num_attention_heads": 32.0, "num_key_value_heads": 8.0,
			"intermediate_size": 8192.0, "head_dim": 64.0, "tie_word_embeddings": true, "rope_scaling": scaling(32)},
		"llama3.2-3b": {"hidden_size": 3072.0, "num_hidden_layers": 28.0, "num_attention_heads": 24.0, "num_key_value_heads": 8.0,
			"intermediate_size": 8192.0, "head_dim": 128.0, "tie_word_embeddings": true, "rope_scaling": scaling(32)},
		"llama3.1-8b": {"hidden_size": 4096.0, "num_hidden_layers": 32.0, "num_attention_heads": 32.0, "num_key_value_heads": 8.0,
			"intermediate_size": 14336.0, "head_dim": 128.0, "tie_word_embeddings": false, "rope_scaling": scaling(8)},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := presetConfig(t, "--preset", name, "--dtype", "bf16", "--out", t.TempDir())
			for k, v := range common {
				want[k] = v
			}
			for k, v := range want {
				if !reflect.DeepEqual(cfg[k], v) {
					t.Errorf("%s = %#v, want %#v", k, cfg[k], v)
				}
			}
			if cfg["torch_dtype"] != "bfloat16" {
				t.Errorf("torch_dtype = %v, want bfloat16 (--dtype bf16)", cfg["torch_dtype"])
			}
			if got := presetConfig(t, "--preset", name, "--layers", "2", "--out", t.TempDir())["num_hidden_layers"]; got != 2.0 {
				t.Errorf("--layers 2 with the preset: num_hidden_layers = %v", got)
			}
		})
	}
}

// presetConfig parses synth model's flags as runSynthModel does and
// returns the config.json synth would write.
func presetConfig(t *testing.T, args ...string) map[string]any {
	t.Helper()
	o, _, err := parseSynthModel(args)
	if err != nil {
		t.Fatal(err)
	}
	b, err := synth.ConfigJSON(o)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}
