package models

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
)

// addFiles seeds f with the contents of files.
func addFiles(f *testing.F, files ...string) {
	f.Helper()
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// writeFile writes data as dir/name.
func writeFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzConfig loads arbitrary bytes as config.json through LoadConfig, as
// goeval run does: no panic, every error bad input, and an accepted config
// validates again, builds a model and implies a tensor list whose shapes
// are all positive.
func FuzzConfig(f *testing.F) {
	for _, n := range []string{"tiny-llama", "tiny-llama32", "tiny-qwen2", "tiny-qwen3"} {
		addFiles(f, testutil.Fixture(f, n, ConfigFile))
	}
	for _, n := range []string{"gemma2", "gemma3", "gemma3mm", "phi", "phi3"} {
		addFiles(f, filepath.Join("testdata", "archs", n, ConfigFile))
	}
	f.Add([]byte(`{"architectures":["Gemma3ForConditionalGeneration"],"text_config":{"num_hidden_layers":1,"hidden_size":8},"tie_word_embeddings":false}`))
	f.Add([]byte(`{"architectures":["Gemma2ForCausalLM"],"hidden_size":8,"intermediate_size":8,"num_hidden_layers":-1,"num_attention_heads":2,"vocab_size":4}`))
	f.Add([]byte(`{"architectures":["Phi3ForCausalLM"],"hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,"num_attention_heads":2,"vocab_size":4,"eos_token_id":[1,"x"],"rope_parameters":{"rope_type":"longrope"}}`))
	dir := f.TempDir() // one per worker process; its inputs run one at a time
	f.Fuzz(func(t *testing.T, data []byte) {
		writeFile(t, dir, ConfigFile, data)
		c, err := LoadConfig(dir)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config fails Validate: %v", err)
		}
		if _, err := New(c); err != nil {
			t.Fatalf("accepted config does not build: %v", err)
		}
		if c.NumHiddenLayers > 256 {
			return // valid, but listing its tensors is slow; the shapes do not depend on the depth
		}
		want := ExpectedTensors(c)
		if len(want) == 0 {
			t.Fatal("accepted config implies no tensors")
		}
		for name, shape := range want {
			for _, d := range shape {
				if d <= 0 {
					t.Fatalf("tensor %s has shape %v", name, shape)
				}
			}
		}
	})
}

// fuzzModules are PEFT module keys of a llama checkpoint, for the rank and
// scale of an accepted adapter_config.json.
var fuzzModules = []string{
	"model.layers.0.self_attn.q_proj", "model.layers.1.self_attn.v_proj", "model.layers.0.mlp.down_proj",
	"model.embed_tokens", "lm_head",
}

// FuzzAdapterConfig parses arbitrary bytes as adapter_config.json: no
// panic, every error bad input, and an accepted config gives every module
// (including the rank_pattern and alpha_pattern keys themselves) a positive
// rank and a finite scale.
func FuzzAdapterConfig(f *testing.F) {
	for _, n := range []string{"all-linear-r8", "qv-lm-head", "rslora-r8"} {
		addFiles(f, filepath.Join("testdata", "lora", n, AdapterConfigFile))
	}
	addFiles(f, testutil.Fixture(f, "tiny-qwen2-lora", AdapterConfigFile))
	f.Add([]byte(`{"peft_type":"LORA","r":4,"lora_alpha":8,"target_modules":"model\\.layers\\.\\d+\\.self_attn\\.(q|v)_proj","rank_pattern":{"q_proj":2},"alpha_pattern":{"v_proj":1}}`))
	f.Add([]byte(`{"r":4,"lora_alpha":8,"target_modules":["q_proj"],"rank_pattern":{"(":2}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		writeFile(t, dir, AdapterConfigFile, data)
		c, err := readAdapterConfig(dir)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		match, err := c.targetMatcher()
		if err != nil {
			t.Fatalf("accepted config has no target matcher: %v", err)
		}
		mods := append([]string(nil), fuzzModules...)
		for k := range c.RankPattern {
			mods = append(mods, k)
		}
		for k := range c.AlphaPattern {
			mods = append(mods, k)
		}
		for _, m := range mods {
			match(m)
			r := c.rankFor(m)
			if s := c.scaleFor(m, r); r <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
				t.Fatalf("module %q: rank %d, scale %g", m, r, s)
			}
		}
	})
}
