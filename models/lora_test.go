package models

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// fixtures is the shared reference-fixture folder (see its README).
const fixtures = "../../shared/fixtures"

// openFixture opens a fixture checkpoint or skips when the shared fixtures
// are not checked out next to the module.
func openFixture(t *testing.T, name string) *safetensors.Set {
	t.Helper()
	dir := filepath.Join(fixtures, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("fixture %s not present: %v", dir, err)
	}
	s, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestLoRAMergeMatchesPreMerged merges the tiny-qwen2 adapter into the base
// weights and compares every tensor with the checkpoint merged by PEFT.
func TestLoRAMergeMatchesPreMerged(t *testing.T) {
	base := openFixture(t, "tiny-qwen2")
	merged := openFixture(t, "tiny-qwen2-merged")
	a, err := LoadAdapter(filepath.Join(fixtures, "tiny-qwen2-lora"), base)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Layers) != 14 {
		t.Fatalf("adapter has %d LoRA layers, want 14 (7 projections × 2 layers)", len(a.Layers))
	}
	if got := a.Layers["model.layers.0.self_attn.q_proj.weight"].Scale; got != 2 {
		t.Errorf("scale = %g, want alpha/r = 8/4 = 2", got)
	}
	changed, maxDiff := 0, 0.0
	for _, name := range base.Names() {
		info, _ := base.Info(name)
		w, err := base.Float32(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.MergeInto(name, w, info.Shape)
		if err != nil {
			t.Fatal(err)
		}
		want, err := merged.Float32(name)
		if err != nil {
			t.Fatal(err)
		}
		if &got[0] != &w[0] {
			changed++
		}
		for i := range want {
			maxDiff = math.Max(maxDiff, math.Abs(float64(got[i]-want[i])))
		}
	}
	t.Logf("merged vs pre-merged: max |Δw| = %.3g over %d changed tensors", maxDiff, changed)
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
	base := openFixture(t, "tiny-qwen2")
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

// TestLoRAQwen2FixtureMerged reproduces the shared tiny-qwen2-lora reference
// (llama.cpp applying the adapter at run time) with the adapter merged at
// load.
func TestLoRAQwen2FixtureMerged(t *testing.T) {
	base := openFixture(t, "tiny-qwen2")
	loraDir := filepath.Join(fixtures, "tiny-qwen2-lora")
	a, err := LoadAdapter(loraDir, base)
	if err != nil {
		t.Fatal(err)
	}
	tm := loadTestModel(t, filepath.Join(fixtures, "tiny-qwen2"), a.MergeInto)
	reqs := readJSONL[scoreReq](t, filepath.Join(loraDir, "requests.jsonl"))
	want := readJSONL[goldenLine](t, filepath.Join(loraDir, "reference.jsonl"))
	if !testing.Verbose() || testing.Short() {
		reqs = reqs[:6] // ~1 s per request on simplego; -v runs all 40
	}
	d := maxDiff(tm.score(t, reqs, -1), want)
	t.Logf("tiny-qwen2-lora merged vs llama.cpp: max |Δ logprob_sum| = %.3g over %d requests", d, len(reqs))
	if d > 1e-4 {
		t.Errorf("max |Δ| = %g > 1e-4", d)
	}
}

// TestLoRAQwen2MergedSeparatePreMerged checks merged ≡ separate ≡ the
// checkpoint merged by PEFT on the shared tiny-qwen2 fixture, per token.
func TestLoRAQwen2MergedSeparatePreMerged(t *testing.T) {
	base := openFixture(t, "tiny-qwen2")
	loraDir := filepath.Join(fixtures, "tiny-qwen2-lora")
	a, err := LoadAdapter(loraDir, base)
	if err != nil {
		t.Fatal(err)
	}
	reqs := readJSONL[scoreReq](t, filepath.Join(loraDir, "requests.jsonl"))[:4]
	pre := loadTestModel(t, filepath.Join(fixtures, "tiny-qwen2-merged"), nil).score(t, reqs, -1)
	merged := loadTestModel(t, filepath.Join(fixtures, "tiny-qwen2"), a.MergeInto).score(t, reqs, -1)
	sep := loadTestModel(t, filepath.Join(fixtures, "tiny-qwen2"), nil)
	if err := LoadAdapterVariables(sep.ctx, sep.backend, a, 0, dtypes.Float32); err != nil {
		t.Fatal(err)
	}
	separate := sep.score(t, reqs, 0)
	baseRun := sep.score(t, reqs, -1)
	t.Logf("per-token max |Δ logprob|: merged vs pre-merged %.3g, separate vs pre-merged %.3g, merged vs separate %.3g; base vs adapter %.3g",
		maxDiffRuns(merged, pre), maxDiffRuns(separate, pre), maxDiffRuns(merged, separate), maxDiffRuns(baseRun, pre))
	for _, d := range []float64{maxDiffRuns(merged, pre), maxDiffRuns(separate, pre), maxDiffRuns(merged, separate)} {
		if d > 1e-5 {
			t.Errorf("Δ = %g > 1e-5", d)
		}
	}
	if maxDiffRuns(baseRun, pre) < 1e-3 {
		t.Error("the adapter does not change the fixture model; the test proves nothing")
	}
}

// TestLoRABiases: bias "all" saves trained biases (under .base_layer. for
// wrapped modules), which replace the base ones; lora_B.bias adds
// scale·bias.
func TestLoRABiases(t *testing.T) {
	base := openFixture(t, "tiny-qwen2")
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
