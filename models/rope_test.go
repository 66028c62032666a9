package models

import (
	"reflect"
	"testing"

	"github.com/goeval/goeval/models/nn"
)

// TestRopeSpellings: the same rotary embedding spelled three ways —
// transformers 4's rope_theta and rope_scaling (rope_type, or the older
// type), and transformers 5's rope_parameters — gives every architecture
// the same inverse frequencies, the ones nn.InvFreq computes from the
// values, and Config shows it the same way.
func TestRopeSpellings(t *testing.T) {
	scaled := &nn.RopeScaling{Type: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 64}
	want, err := nn.InvFreq(16, 500000, scaled)
	if err != nil {
		t.Fatal(err)
	}
	show := &RopeScaling{Type: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 64}
	for _, arch := range []string{"LlamaForCausalLM", "Qwen3ForCausalLM", "PhiForCausalLM", "Phi3ForCausalLM"} {
		for _, keys := range []string{
			`,"head_dim":16,"rope_theta":500000,"rope_scaling":{"rope_type":"llama3","factor":8,"low_freq_factor":1,"high_freq_factor":4,"original_max_position_embeddings":64}`,
			`,"head_dim":16,"rope_theta":500000,"rope_scaling":{"type":"llama3","factor":8,"low_freq_factor":1,"high_freq_factor":4,"original_max_position_embeddings":64}`,
			`,"head_dim":16,"rope_parameters":{"rope_theta":500000,"rope_type":"llama3","factor":8,"low_freq_factor":1,"high_freq_factor":4,"original_max_position_embeddings":64.0}`,
		} {
			c, err := ParseConfig("config.json", []byte(tinyJSON(arch, keys)))
			if err != nil {
				t.Fatalf("%s %s: %v", arch, keys, err)
			}
			r, err := c.ropeLayer("")
			if err != nil {
				t.Fatal(err)
			}
			if r.rot != 16 || !reflect.DeepEqual(r.invFreq, want) || c.RopeTheta != 500000 || !reflect.DeepEqual(c.RopeScaling, show) {
				t.Errorf("%s %s: rot %d, inv_freq %v, theta %g, scaling %+v; want 16, %v, 500000, %+v",
					arch, keys, r.rot, r.invFreq, c.RopeTheta, c.RopeScaling, want, show)
			}
		}
	}
}
