package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/lm"
)

// TestQ4PackedOnXLA (GOEVAL_TEST_DEVICE=xla-cpu or cuda): 4-bit
// checkpoints on XLA, in float32, keep their 14 projections packed for the
// graph (uint8 codes) through scoring and generation, score as with
// Options.Dequantize4Bit (on xla-cpu the same bits where no input columns
// are permuted, desc_act within 1e-5, its products summed in group order;
// on cuda within 1e-4, where XLA may fuse the dequantization into the
// product), generate the same tokens and report the same parameter count.
func TestQ4PackedOnXLA(t *testing.T) {
	device := os.Getenv("GOEVAL_TEST_DEVICE")
	if device != "xla-cpu" && device != "cuda" {
		t.Skip("XLA: GOEVAL_TEST_DEVICE=xla-cpu or cuda")
	}
	for _, c := range []struct {
		golden string
		bound  float64
	}{{"bnb/llama-nf4-dq", 0}, {"quant/llama-gptq4-descact-asym", 1e-5}} {
		t.Run(c.golden, func(t *testing.T) {
			var scores [2][]lm.LoglikelihoodResult
			var texts [2][]lm.GenerateResult
			var params [2]int
			for i, dequant := range []bool{false, true} {
				scores[i], texts[i], params[i] = runQ4XLA(t, filepath.Join("..", "models", "testdata", c.golden), device, dequant)
			}
			if params[0] != params[1] {
				t.Errorf("%d parameters packed, %d dequantized at load", params[0], params[1])
			}
			if device != "xla-cpu" {
				c.bound = max(c.bound, 1e-4)
			}
			for j := range scores[0] {
				if d := math.Abs(scores[0][j].LogProb - scores[1][j].LogProb); d > c.bound || scores[0][j].IsGreedy != scores[1][j].IsGreedy {
					t.Errorf("request %d: packed %+v, dequantized %+v (bound %g)", j, scores[0][j], scores[1][j], c.bound)
				}
			}
			for j := range texts[0] {
				if !slices.Equal(texts[0][j].IDs, texts[1][j].IDs) {
					t.Errorf("generation %d: packed %v, dequantized %v", j, texts[0][j].IDs, texts[1][j].IDs)
				}
			}
		})
	}
}

// runQ4XLA scores and generates TestQ4PackedOnXLA's requests with dir
// on device in float32 and checks how many weights are packed for the graph.
func runQ4XLA(t *testing.T, dir, device string, dequant bool) ([]lm.LoglikelihoodResult, []lm.GenerateResult, int) {
	t.Helper()
	e, err := Open(dir, Options{Device: device, DType: "float32", Dequantize4Bit: dequant})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	s, err := e.Loglikelihood(ctx, mcWorkload(4, 4, 40, 5, 128))
	if err != nil {
		t.Fatal(err)
	}
	gen := []lm.GenerateRequest{{ContextIDs: []int32{5, 6, 7}, MaxTokens: 6}, {ContextIDs: []int32{8, 9, 10, 11}, MaxTokens: 6}}
	g, err := e.GenerateUntil(ctx, gen)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	e.ctx.EnumerateVariables(func(v *mlctx.Variable) {
		if v.Name() == "q4_codes" {
			n++
		}
	})
	if want := map[bool]int{false: 14, true: 0}[dequant]; n != want {
		t.Errorf("Dequantize4Bit %v: %d weights packed for the graph, want %d", dequant, n, want)
	}
	return s, g, e.NumParameters()
}
