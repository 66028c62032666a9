package models

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/safetensors"
)

// randomAdapter writes an "all-linear" rank-2 adapter for every 2-D layer
// weight of the checkpoint in baseDir (fused qkv_proj and gate_up_proj
// included; lora_B.bias where the base layer has a bias, as Phi's do) and
// returns its directory.
func randomAdapter(t *testing.T, base *safetensors.Set) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	randn := func(n int, std float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = std * float32(rng.NormFloat64())
		}
		return v
	}
	var ts []safetensors.Tensor
	for _, name := range base.Names() {
		info, _ := base.Info(name)
		if len(info.Shape) != 2 || !strings.Contains(name, ".layers.") {
			continue
		}
		m := peftPrefix + strings.TrimSuffix(name, ".weight")
		out, in := info.Shape[0], info.Shape[1]
		ts = append(ts, f32Tensor(m+".lora_A.weight", []int{2, in}, randn(2*in, 0.2)),
			f32Tensor(m+".lora_B.weight", []int{out, 2}, randn(2*out, 0.2)))
		if _, ok := base.Info(strings.TrimSuffix(name, ".weight") + ".bias"); ok {
			ts = append(ts, f32Tensor(m+".lora_B.bias", []int{out}, randn(out, 0.2))) // PEFT lora_bias
		}
	}
	return writeAdapter(t, `{"peft_type":"LORA","r":2,"lora_alpha":4,"target_modules":"all-linear"}`, ts)
}

// TestArchsLoRAMergedEqualsSeparate applies a random adapter on every
// projection of each new architecture, merged at load and separately in
// the graph: per-token log-probs agree to 1e-5 and differ from the base.
func TestArchsLoRAMergedEqualsSeparate(t *testing.T) {
	dir := filepath.Join(testdata, "archs")
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(dir, "requests.jsonl"))[:5]
	for _, name := range []string{"phi", "phi3", "gemma2", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			mdir := filepath.Join(dir, name)
			base, err := safetensors.Open(mdir)
			if err != nil {
				t.Fatal(err)
			}
			defer base.Close()
			a, err := LoadAdapter(randomAdapter(t, base), base)
			if err != nil {
				t.Fatal(err)
			}
			merged := loadTestModel(t, mdir, a.MergeInto).score(t, reqs, -1)
			sep := loadTestModel(t, mdir, nil)
			if err := LoadAdapterVariables(sep.ctx, sep.backend, a, 0, dtypes.Float32); err != nil {
				t.Fatal(err)
			}
			separate, plain := sep.score(t, reqs, 0), sep.score(t, reqs, -1)
			d, moved := maxDiffRuns(merged, separate), maxDiffRuns(merged, plain)
			t.Logf("%s: %d LoRA modules; merged vs separate %.3g, adapter vs base %.3g", name, len(a.Layers), d, moved)
			if d > 1e-5 || moved < 1e-2 {
				t.Errorf("merged vs separate %g (want ≤ 1e-5), adapter vs base %g (want a visible change)", d, moved)
			}
		})
	}
}
