package models_test

import (
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/synth"
)

// TestLoadMappedEmbedding: with weight-only bf16 on the pure-Go backend,
// a BF16 checkpoint's embedding is held in a private mapping of the file
// (gocpu.StorageGiven) when the LM head is its own weight, and copied as
// before when tied to it; either way the per-token log-probs are those of
// the float32 load (the bf16 weights widened exactly), bit for bit, and
// finalizing the variables runs.
func TestLoadMappedEmbedding(t *testing.T) {
	reqs := []testutil.Request{
		{ContextIDs: []int32{1, 5, 9, 40}, ContinuationIDs: []int32{7, 3}},
		{ContextIDs: []int32{1, 63, 62}, ContinuationIDs: []int32{0, 2, 11}},
	}
	for _, tie := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "m")
		if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Intermediate: 64,
			Vocab: 64, Seed: 7, BOS: 1, EOS: 2, DType: "bf16", Tie: tie, Out: dir}); err != nil {
			t.Fatal(err)
		}
		b, err := gocpu.New("")
		if err != nil {
			t.Fatal(err)
		}
		l16, err := models.Load(b, dir, models.LoadOptions{DType: dtypes.Float32, WeightDType: dtypes.BFloat16})
		if err != nil {
			t.Fatal(err)
		}
		l32, err := models.Load(b, dir, models.LoadOptions{DType: dtypes.Float32})
		if err != nil {
			t.Fatal(err)
		}
		if n, want := storageGiven(t, b, l16.Context), map[bool]int{false: 1, true: 0}[tie]; n != want {
			t.Errorf("tie=%v: %d weights in given storage, want %d", tie, n, want)
		}
		got := models.WrapTestModel(b, l16).Score(t, reqs, -1)
		want := models.WrapTestModel(b, l32).Score(t, reqs, -1)
		if d := models.MaxDiffRuns(got, want); d != 0 {
			t.Errorf("tie=%v: weight-only bf16 vs float32 load: max per-token |Δ| %g, want 0", tie, d)
		}
		l16.Context.Finalize()
		l32.Context.Finalize()
	}
}

// storageGiven counts ctx's variables held in storage given to gocpu.
func storageGiven(t *testing.T, b *gocpu.Backend, ctx *context.Context) int {
	t.Helper()
	n := 0
	ctx.EnumerateVariables(func(v *context.Variable) {
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		buf, err := val.Buffer(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		n += gocpu.StorageGiven(buf)
	})
	return n
}
