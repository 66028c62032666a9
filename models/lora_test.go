package models

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/safetensors"
)

// qwen2Base writes a small Qwen2 checkpoint with tiny-qwen2's layer shapes
// (hidden 32, 4 heads of 8, 2 KV heads, MLP 96; vocab 64), which the
// committed tiny-qwen2-lora adapter fits. The values are a fixed
// pseudo-random sequence (package synth cannot be used here: it imports
// models).
func qwen2Base(t *testing.T) *safetensors.Set {
	t.Helper()
	cfg, err := ParseConfig("config.json", []byte(`{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
		"hidden_size": 32, "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
		"num_key_value_heads": 2, "vocab_size": 64, "tie_word_embeddings": true, "rms_norm_eps": 1e-6}`))
	if err != nil {
		t.Fatal(err)
	}
	var ts []safetensors.Tensor
	x := uint32(7)
	want := ExpectedTensors(cfg)
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names) // a fixed order, so the values are the same every run
	for _, name := range names {
		shape := want[name]
		n := 1
		for _, d := range shape {
			n *= d
		}
		vals := make([]float32, n)
		for i := range vals {
			x = x*1664525 + 1013904223
			vals[i] = float32(int32(x>>8)%2000) / 20000 // in (-0.1, 0.1)
		}
		ts = append(ts, f32Tensor(name, shape, vals))
	}
	dir := t.TempDir()
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), ts, nil); err != nil {
		t.Fatal(err)
	}
	s, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestLoRAMergeMatchesPreMerged merges the tiny-qwen2-lora adapter into
// base weights and compares every tensor with W + (alpha/r)·B·A computed
// here in float64 from the adapter file.
func TestLoRAMergeMatchesPreMerged(t *testing.T) {
	base := qwen2Base(t)
	dir := testutil.Fixture(t, "tiny-qwen2-lora")
	a, err := LoadAdapter(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Layers) != 14 {
		t.Fatalf("adapter has %d LoRA layers, want 14 (7 projections × 2 layers)", len(a.Layers))
	}
	if got := a.Layers["model.layers.0.self_attn.q_proj.weight"].Scale; got != 2 {
		t.Errorf("scale = %g, want alpha/r = 8/4 = 2", got)
	}
	ad, err := safetensors.OpenFile(filepath.Join(dir, AdapterWeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer ad.Close()
	changed, maxDiff := 0, 0.0
	for _, name := range base.Names() {
		info, _ := base.Info(name)
		w, err := base.Float32(name)
		if err != nil {
			t.Fatal(err)
		}
		orig := append([]float32(nil), w...)
		got, err := a.MergeInto(name, w, info.Shape)
		if err != nil {
			t.Fatal(err)
		}
		stem := "base_model.model." + strings.TrimSuffix(name, ".weight")
		la, errA := ad.Float32(stem + ".lora_A.weight")
		lb, errB := ad.Float32(stem + ".lora_B.weight")
		if errA != nil || errB != nil {
			for i := range orig {
				if got[i] != orig[i] {
					t.Fatalf("%s is not an adapter target but changed", name)
				}
			}
			continue
		}
		changed++
		out, in := info.Shape[0], info.Shape[1]
		r := len(la) / in
		for i := 0; i < out; i++ {
			for j := 0; j < in; j++ {
				d := 0.0
				for k := 0; k < r; k++ {
					d += float64(lb[i*r+k]) * float64(la[k*in+j])
				}
				want := float64(orig[i*in+j]) + 2*d
				maxDiff = math.Max(maxDiff, math.Abs(float64(got[i*in+j])-want))
			}
		}
	}
	t.Logf("merged vs float64 W + s·B·A: max |Δw| = %.3g over %d changed tensors", maxDiff, changed)
	if changed != 14 {
		t.Errorf("%d tensors changed, want 14", changed)
	}
	if maxDiff > 1e-6 {
		t.Errorf("max |Δw| = %g > 1e-6", maxDiff)
	}
}

// writeAdapter writes an adapter folder with the given config JSON and tensors.
func writeAdapter(t *testing.T, cfg string, tensors []safetensors.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, AdapterConfigFile), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if tensors != nil {
		if err := safetensors.Write(filepath.Join(dir, AdapterWeightsFile), tensors, nil); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// f32Tensor makes a safetensors F32 tensor.
func f32Tensor(name string, shape []int, vals []float32) safetensors.Tensor {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		u := math.Float32bits(v)
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return safetensors.Tensor{Name: name, DType: "F32", Shape: shape, Data: b}
}

// ramp returns n values 0.1, 0.2, …
func ramp(n int, step float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = step * float32(i+1)
	}
	return v
}

// TestLoRAConfigVariants checks scale rules (rslora, alpha_pattern), the
// "all-linear" and regex target forms, ".default" names and the merge
// arithmetic against a hand-computed product on a 2×3 weight.
func TestLoRAConfigVariants(t *testing.T) {
	baseDir := t.TempDir()
	w := ramp(6, 1) // q_proj.weight [2,3] = 1..6
	if err := safetensors.Write(filepath.Join(baseDir, "model.safetensors"), []safetensors.Tensor{
		f32Tensor("model.layers.0.self_attn.q_proj.weight", []int{2, 3}, w),
		f32Tensor("lm_head.weight", []int{5, 2}, ramp(10, 1)),
	}, nil); err != nil {
		t.Fatal(err)
	}
	base, err := safetensors.Open(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	A := []float32{1, 0, 2, 0, 1, 0, 3, 0, 1, 1, 1, 1} // [4,3]
	B := []float32{1, 0, 0, 1, 0, 1, 1, 0}             // [2,4]
	tensors := []safetensors.Tensor{
		f32Tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_A.default.weight", []int{4, 3}, A),
		f32Tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", []int{2, 4}, B),
	}
	// B·A row 0 = A0 + A3 = [2,1,3]; row 1 = A1 + A2 = [3,1,1].
	ba := []float64{2, 1, 3, 3, 1, 1}
	for _, tc := range []struct {
		name, cfg string
		scale     float64
	}{
		{"list", `{"peft_type":"LORA","r":4,"lora_alpha":8,"target_modules":["q_proj"]}`, 2},
		{"rslora", `{"r":4,"lora_alpha":8,"use_rslora":true,"target_modules":"all-linear"}`, 4},
		{"regex+alpha_pattern", `{"r":4,"lora_alpha":8,"target_modules":".*\\.(q|v)_proj","alpha_pattern":{"q_proj":2}}`, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := LoadAdapter(writeAdapter(t, tc.cfg, tensors), base)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.MergeInto("model.layers.0.self_attn.q_proj.weight", w, []int{2, 3})
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if want := float32(float64(w[i]) + tc.scale*ba[i]); got[i] != want {
					t.Fatalf("merged[%d] = %g, want %g (scale %g)", i, got[i], want, tc.scale)
				}
			}
			if w[0] != 1 {
				t.Fatal("MergeInto wrote into its input")
			}
			same, _ := a.MergeInto("lm_head.weight", []float32{7}, []int{5, 2})
			if same[0] != 7 {
				t.Error("untouched tensor changed")
			}
		})
	}
}

// TestLoRABadInput checks that malformed adapters fail with a bad-input
// error naming the problem.
func TestLoRABadInput(t *testing.T) {
	base := qwen2Base(t)
	good := `{"r":4,"lora_alpha":8,"target_modules":["q_proj"]}`
	qA := f32Tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", []int{4, 32}, ramp(128, 0.01))
	qB := f32Tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", []int{32, 4}, ramp(128, 0.01))
	for _, tc := range []struct {
		name, cfg string
		tensors   []safetensors.Tensor
		pickle    bool
		want      string
	}{
		{"pickle", good, nil, true, "save_file"},
		{"no weights", good, nil, false, "no adapter_model.safetensors"},
		{"bad json", `{"r":`, []safetensors.Tensor{qA, qB}, false, "malformed JSON"},
		{"dora", `{"r":4,"lora_alpha":8,"use_dora":true,"target_modules":["q_proj"]}`, []safetensors.Tensor{qA, qB}, false, "DoRA"},
		{"zero r", `{"r":0,"lora_alpha":8,"target_modules":["q_proj"]}`, []safetensors.Tensor{qA, qB}, false, "r must be"},
		{"bad bias", `{"r":4,"lora_alpha":8,"bias":"some","target_modules":["q_proj"]}`, []safetensors.Tensor{qA, qB}, false, "bias"},
		{"not targeted", `{"r":4,"lora_alpha":8,"target_modules":["v_proj"]}`, []safetensors.Tensor{qA, qB}, false, "does not match"},
		{"rank mismatch", `{"r":8,"lora_alpha":8,"target_modules":["q_proj"]}`, []safetensors.Tensor{qA, qB}, false, "rank 4"},
		{"half pair", good, []safetensors.Tensor{qA}, false, "only one of"},
		{"unknown module", `{"r":4,"lora_alpha":8,"target_modules":"all-linear"}`, []safetensors.Tensor{
			f32Tensor("base_model.model.model.layers.9.self_attn.q_proj.lora_A.weight", []int{4, 32}, ramp(128, 0.01)),
			f32Tensor("base_model.model.model.layers.9.self_attn.q_proj.lora_B.weight", []int{32, 4}, ramp(128, 0.01))}, false, "layers.9"},
		{"shape", good, []safetensors.Tensor{qA,
			f32Tensor("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", []int{16, 4}, ramp(64, 0.01))}, false, "base tensor"},
		{"stray tensor", good, []safetensors.Tensor{qA, qB, f32Tensor("base_model.model.model.norm.weight", []int{32}, ramp(32, 1))}, false, "unknown adapter tensor"},
		{"no prefix", good, []safetensors.Tensor{f32Tensor("model.layers.0.self_attn.q_proj.lora_A.weight", []int{4, 32}, ramp(128, 0.01))}, false, "base_model.model."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAdapter(t, tc.cfg, tc.tensors)
			if tc.pickle {
				os.WriteFile(filepath.Join(dir, "adapter_model.bin"), []byte("x"), 0o644)
			}
			_, err := LoadAdapter(dir, base)
			if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want a bad-input error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

// TestLoRABiases: bias "all" saves trained biases (under .base_layer. for
// wrapped modules), which replace the base ones; lora_B.bias adds
// scale·bias.
func TestLoRABiases(t *testing.T) {
	base := qwen2Base(t)
	p := "base_model.model.model.layers.0.self_attn."
	dir := writeAdapter(t, `{"r":4,"lora_alpha":8,"bias":"all","target_modules":["q_proj","k_proj"]}`, []safetensors.Tensor{
		f32Tensor(p+"q_proj.lora_A.weight", []int{4, 32}, ramp(128, 0.01)),
		f32Tensor(p+"q_proj.lora_B.weight", []int{32, 4}, ramp(128, 0.01)),
		f32Tensor(p+"q_proj.base_layer.bias", []int{32}, ramp(32, 1)),
		f32Tensor(p+"k_proj.lora_A.weight", []int{4, 32}, ramp(128, 0.01)),
		f32Tensor(p+"k_proj.lora_B.weight", []int{16, 4}, ramp(64, 0.01)),
		f32Tensor(p+"k_proj.lora_B.bias", []int{16}, ramp(16, 1)),
	})
	a, err := LoadAdapter(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	q, err := a.MergeInto("model.layers.0.self_attn.q_proj.bias", make([]float32, 32), []int{32})
	if err != nil || q[31] != 32 {
		t.Fatalf("q bias = %v, %v; want the saved bias 1..32", q, err)
	}
	kb := make([]float32, 16)
	kb[3] = 0.5
	k, err := a.MergeInto("model.layers.0.self_attn.k_proj.bias", kb, []int{16})
	if err != nil || k[3] != 0.5+2*4 {
		t.Fatalf("k bias[3] = %v, %v; want 0.5 + scale 2 × 4", k, err)
	}
	if got := strings.Join(a.Targets(), ","); !strings.Contains(got, "k_proj.bias") || !strings.Contains(got, "q_proj.bias") {
		t.Errorf("Targets() = %s, want both biases", got)
	}
}
