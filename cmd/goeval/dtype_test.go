package main

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestModelDTypesPerModel: --dtype auto resolves for each checkpoint of a
// sweep from its own config.json (torch_dtype, or transformers ≥ 4.56's
// dtype) on cuda, and to float32 on a CPU device; any other value is
// recorded as given. No GPU is needed: the device is an argument.
func TestModelDTypesPerModel(t *testing.T) {
	dir := t.TempDir()
	ckpt := func(name, dtypeKey string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := `{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 32, "intermediate_size": 64,
"num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 1, "vocab_size": 300,
"max_position_embeddings": 64, "rms_norm_eps": 1e-6` + dtypeKey + `}`
		writeFile(t, filepath.Join(p, "config.json"), cfg)
		return p
	}
	f32, bf16 := ckpt("f32", `, "torch_dtype": "float32"`), ckpt("bf16", `, "torch_dtype": "bfloat16"`)
	f16, none := ckpt("f16", `, "dtype": "float16"`), ckpt("none", "")
	sweep := []string{f32, bf16, f16, none, "fake"}
	for _, c := range []struct {
		dtype, device string
		want          map[string]string
	}{
		{"auto", "cuda", map[string]string{f32: "float32", bf16: "bfloat16", f16: "float16", none: "float32", "fake": "float32"}},
		{"auto", "cpu", map[string]string{f32: "float32", bf16: "float32", f16: "float32", none: "float32", "fake": "float32"}},
		{"auto", "xla-cpu", map[string]string{f32: "float32", bf16: "float32", f16: "float32", none: "float32", "fake": "float32"}},
		{"half", "cuda", map[string]string{f32: "half", bf16: "half", f16: "half", none: "half", "fake": "half"}},
		{"bf16", "cpu", map[string]string{f32: "bf16", bf16: "bf16", f16: "bf16", none: "bf16", "fake": "bf16"}},
	} {
		got, err := modelDTypes(&runFlags{dtype: c.dtype}, hubState{}, sweep, c.device)
		if err != nil || !maps.Equal(got, c.want) {
			t.Errorf("--dtype %s on %s: %v, %v; want %v", c.dtype, c.device, got, err, c.want)
		}
	}
}
