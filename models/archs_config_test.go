package models

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

// tinyJSON is a config.json with the given architecture and extra keys.
func tinyJSON(arch, extra string) string {
	return `{"architectures":["` + arch + `"],"hidden_size":64,"intermediate_size":128,"num_hidden_layers":6,
	"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100,"max_position_embeddings":512` + extra + `}`
}

// TestArchConfigsOldKeys parses the transformers 4 spellings that real
// checkpoints on the Hub use: Gemma 3's rope_local_base_freq, rope_scaling
// and sliding_window_pattern; Phi-2's top-level partial_rotary_factor.
func TestArchConfigsOldKeys(t *testing.T) {
	c, err := ParseConfig("config.json", []byte(tinyJSON("Gemma3ForCausalLM",
		`,"head_dim":16,"rope_theta":1000000,"rope_local_base_freq":10000,"sliding_window":4,
		"sliding_window_pattern":3,"rope_scaling":{"rope_type":"linear","factor":8},"query_pre_attn_scalar":16`)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	d := m.(*decoder)
	g := d.blocks.(*gemma)
	var windows []int
	for _, o := range d.attn {
		windows = append(windows, o.Window)
	}
	if got := fmt.Sprint(windows); got != "[4 4 0 4 4 0]" {
		t.Errorf("windows = %v, want [4 4 0 4 4 0] (pattern 3)", windows)
	}
	local := 1 / math.Pow(10000, 2.0/16)
	global := 1 / math.Pow(1e6, 2.0/16) / 8
	if d := math.Abs(g.layers[0].invFreq[1]-local) / local; d > 1e-6 {
		t.Errorf("sliding layer inv_freq[1] = %g, want %g (rope_local_base_freq, unscaled)", g.layers[0].invFreq[1], local)
	}
	if d := math.Abs(g.layers[2].invFreq[1]-global) / global; d > 1e-6 {
		t.Errorf("global layer inv_freq[1] = %g, want %g (rope_theta / linear 8)", g.layers[2].invFreq[1], global)
	}
	c, err = ParseConfig("config.json", []byte(tinyJSON("PhiForCausalLM", `,"hidden_size":320,"num_attention_heads":4,"num_key_value_heads":4,"partial_rotary_factor":0.4,"hidden_act":"gelu_new"`)))
	if err != nil {
		t.Fatal(err)
	}
	pm, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if p := pm.(*decoder).blocks.(*phi); p.rot != 32 || len(p.invFreq) != 16 {
		t.Errorf("phi rotary dims = %d (%d freqs), want 32 = 0.4 × head_dim 80", p.rot, len(p.invFreq))
	}
}

// TestArchConfigsBadInput: unsupported settings fail as bad input naming
// the field.
func TestArchConfigsBadInput(t *testing.T) {
	for _, tc := range []struct{ arch, extra, want string }{
		{"Phi3ForCausalLM", `,"rope_scaling":{"type":"longrope","short_factor":[1],"long_factor":[1]}`, "longrope"},
		{"PhiForCausalLM", `,"hidden_act":"relu"`, "hidden_act"},
		{"PhiForCausalLM", `,"qk_layernorm":true`, "qk_layernorm"},
		{"Gemma2ForCausalLM", `,"head_dim":16,"hidden_activation":"gelu","sliding_window":4`, "hidden_activation"},
		{"Gemma2ForCausalLM", `,"head_dim":16`, "sliding_window"},
		{"Gemma3ForCausalLM", `,"head_dim":16,"sliding_window":4,"layer_types":["full_attention"]`, "layer_types"},
	} {
		_, err := ParseConfig("config.json", []byte(tinyJSON(tc.arch, tc.extra)))
		if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err = %v, want bad input mentioning %q", tc.arch, tc.extra, err, tc.want)
		}
	}
}
