package engine

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// hostLogProb is log_softmax(row)[t] computed on the host in float64 with
// the max subtracted: the reference for targetLogProbs.
func hostLogProb(row []float32, t int) float64 {
	m := math.Inf(-1)
	for _, v := range row {
		m = math.Max(m, float64(v))
	}
	s := 0.0
	for _, v := range row {
		s += math.Exp(float64(v) - m)
	}
	return float64(row[t]) - m - math.Log(s)
}

// TestTargetLogProbsLargeLogits scales ordinary logits ×3000, as a diverged
// checkpoint produces: exp without the max subtraction overflows above 709
// and gave −Inf; the graph must match the host reference instead.
func TestTargetLogProbsLargeLogits(t *testing.T) {
	backend, err := backends.NewWithConfig("go")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	base := [][]float32{{0.5, -1.25, 2, 0.75, 1.5}, {3, 2.5, -4, 0, 1}}
	targets := []int32{2, 1}
	for _, scale := range []float32{1, 3000, -3000} {
		logits := make([][]float32, len(base))
		for i, r := range base {
			logits[i] = make([]float32, len(r))
			for j, v := range r {
				logits[i][j] = v * scale
			}
		}
		out := MustExecOnce(backend, func(l, tg *Node) *Node { lp, _ := targetLogProbs(l, tg); return lp }, logits, targets)
		got := out.Value().([]float64)
		for i := range got {
			want := hostLogProb(logits[i], int(targets[i]))
			if math.IsInf(got[i], 0) || math.IsNaN(got[i]) || math.Abs(got[i]-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("scale %v row %d: logprob %v, want %v", scale, i, got[i], want)
			}
		}
	}
}

// TestTargetLogProbsNonFinite: NaN or +Inf logits must give NaN, never a
// finite number that would pass for a score.
func TestTargetLogProbsNonFinite(t *testing.T) {
	backend, err := backends.NewWithConfig("go")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	logits := [][]float32{{0, nan, 1}, {0, inf, 1}}
	out := MustExecOnce(backend, func(l, tg *Node) *Node { lp, _ := targetLogProbs(l, tg); return lp }, logits, []int32{0, 2})
	for i, v := range out.Value().([]float64) {
		if !math.IsNaN(v) {
			t.Errorf("row %d: logprob %v from non-finite logits, want NaN", i, v)
		}
	}
}
