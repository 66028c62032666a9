package engine

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
)

// TestQ4PackedOnCPU: a bitsandbytes 4-bit checkpoint on the cpu device
// keeps its 14 projections packed through scoring and generation (nothing
// reads them otherwise, which would dequantize them), and scores within
// 1e-5 per request and generates the same tokens as with
// Options.Dequantize4Bit, which holds none packed.
func TestQ4PackedOnCPU(t *testing.T) {
	dir := filepath.Join("..", "models", "testdata", "bnb", "llama-nf4-dq")
	reqs := mcWorkload(4, 4, 40, 5, 128)
	gen := []lm.GenerateRequest{{ContextIDs: []int32{5, 6, 7}, MaxTokens: 6}, {ContextIDs: []int32{8, 9, 10, 11}, MaxTokens: 6}}
	var scores [2][]lm.LoglikelihoodResult
	var texts [2][]lm.GenerateResult
	for i, dequant := range []bool{false, true} {
		e, err := Open(dir, Options{Device: "cpu", Dequantize4Bit: dequant})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if scores[i], err = e.Loglikelihood(ctx, reqs); err != nil {
			t.Fatal(err)
		}
		if texts[i], err = e.GenerateUntil(ctx, gen); err != nil {
			t.Fatal(err)
		}
		n := 0
		e.ctx.EnumerateVariables(func(v *mlctx.Variable) {
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			buf, err := val.Buffer(e.backend, 0)
			if err != nil {
				t.Fatal(err)
			}
			n += gocpu.PackedQ4Weights(buf)
		})
		if want := map[bool]int{false: 14, true: 0}[dequant]; n != want {
			t.Errorf("Dequantize4Bit %v: %d packed 4-bit weights after scoring and generating, want %d", dequant, n, want)
		}
		e.Close()
	}
	for j := range reqs {
		if d := math.Abs(scores[0][j].LogProb - scores[1][j].LogProb); d > 1e-5 || scores[0][j].IsGreedy != scores[1][j].IsGreedy {
			t.Errorf("request %d: packed %+v, dequantized %+v", j, scores[0][j], scores[1][j])
		}
	}
	for j := range gen {
		if !slices.Equal(texts[0][j].IDs, texts[1][j].IDs) {
			t.Errorf("generation %d: packed %v, dequantized %v", j, texts[0][j].IDs, texts[1][j].IDs)
		}
	}
}
