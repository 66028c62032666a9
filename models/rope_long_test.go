package models

import (
	"math"
	"strings"
	"testing"
)

// TestLongRopeConfig: LongRoPE's keys as Phi-3.5's config.json spells them
// (rope_scaling "longrope" or "su", a top-level
// original_max_position_embeddings) and as transformers 5 saves them
// (rope_parameters' own), with transformers' defaults: the attention
// factor from max_position_embeddings / original unless factor or
// attention_factor is given, the inverse frequencies 1 / (ext · θ^(2i/D)).
func TestLongRopeConfig(t *testing.T) {
	short := "[1,1.1,1.2,1.3,1.4,1.5,1.6,1.7]"
	long := "[2,3,4,5,6,7,8,9]"
	factors := `"short_factor":` + short + `,"long_factor":` + long
	for _, c := range []struct {
		name, keys string
		original   int
		scale      float64
	}{
		{"phi3.5", `,"original_max_position_embeddings":64,"rope_scaling":{"type":"longrope",` + factors + `}`, 64, math.Sqrt(1 + math.Log(8)/math.Log(64))},
		{"su", `,"original_max_position_embeddings":64,"rope_scaling":{"type":"su",` + factors + `}`, 64, math.Sqrt(1 + math.Log(8)/math.Log(64))},
		{"attention_factor", `,"original_max_position_embeddings":64,"rope_scaling":{"rope_type":"longrope","attention_factor":1.7,` + factors + `}`, 64, 1.7},
		{"rope_parameters", `,"rope_parameters":{"rope_type":"longrope","rope_theta":10000,"original_max_position_embeddings":128,` + factors + `}`, 128, math.Sqrt(1 + math.Log(4)/math.Log(128))},
		{"factor", `,"original_max_position_embeddings":64,"rope_scaling":{"rope_type":"longrope","factor":2,` + factors + `}`, 64, math.Sqrt(1 + math.Log(2)/math.Log(64))},
		{"no scaling", `,"original_max_position_embeddings":512,"rope_scaling":{"rope_type":"longrope",` + factors + `}`, 512, 1},
	} {
		cfg, err := ParseConfig("config.json", []byte(tinyJSON("Phi3ForCausalLM", c.keys)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r, err := cfg.ropeLayer("")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.long == nil || r.long.original != c.original || math.Abs(r.long.scale-c.scale) > 1e-12 || cfg.LongRopeLength() != c.original {
			t.Fatalf("%s: long %+v, LongRopeLength %d; want original %d, scale %g", c.name, r.long, cfg.LongRopeLength(), c.original, c.scale)
		}
		for i, ext := range []float64{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7} {
			want := 1 / (ext * math.Pow(10000, float64(2*i)/16))
			if d := math.Abs(r.invFreq[i]-want) / want; d > 1e-6 {
				t.Errorf("%s: short inv_freq[%d] = %g, want %g", c.name, i, r.invFreq[i], want)
			}
			if want /= float64(i+2) / ext; math.Abs(r.long.invFreq[i]-want)/want > 1e-6 {
				t.Errorf("%s: long inv_freq[%d] = %g, want %g", c.name, i, r.long.invFreq[i], want)
			}
		}
	}
	llama, err := ParseConfig("config.json", []byte(tinyJSON("LlamaForCausalLM", "")))
	if err != nil {
		t.Fatal(err)
	}
	if n := llama.LongRopeLength(); n != 0 {
		t.Errorf("llama: LongRopeLength = %d, want 0", n)
	}
	_, err = ParseConfig("config.json", []byte(tinyJSON("Phi3ForCausalLM", `,"rope_scaling":{"type":"longrope","short_factor":[1,2],"long_factor":`+long+`}`)))
	if err == nil || !strings.Contains(err.Error(), "short_factor") {
		t.Errorf("short_factor of 2 entries for 8 frequencies: err = %v", err)
	}
	_, err = ParseConfig("config.json", []byte(tinyJSON("Phi3ForCausalLM", `,"original_max_position_embeddings":16.5,"rope_scaling":{"type":"longrope",`+factors+`}`)))
	if err == nil || !strings.Contains(err.Error(), "original_max_position_embeddings") {
		t.Errorf("original_max_position_embeddings 16.5: err = %v", err)
	}
}
