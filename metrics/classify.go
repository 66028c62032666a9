package metrics

import (
	"fmt"
	"math"
	"sort"
)

// F1Score is sklearn.metrics.f1_score(golds, preds) with its defaults
// (average="binary", pos_label=1, zero_division → 0.0) over (gold, pred)
// pairs, as lm-eval's "f1" aggregation. Labels must be 0 or 1: sklearn
// rejects anything else for a binary average.
func F1Score(ps [][2]float64) (float64, error) {
	tp, fp, fn := 0.0, 0.0, 0.0
	for i, p := range ps {
		for _, l := range p {
			if l != 0 && l != 1 {
				return 0, fmt.Errorf("f1: pair %d has label %v; binary f1 needs labels 0 and 1", i, l)
			}
		}
		switch {
		case p[0] == 1 && p[1] == 1:
			tp++
		case p[0] == 0 && p[1] == 1:
			fp++
		case p[0] == 1 && p[1] == 0:
			fn++
		}
	}
	if d := 2*tp + fp + fn; d > 0 {
		return 2 * tp / d, nil
	}
	return 0, nil
}

// MatthewsCorrcoef is sklearn.metrics.matthews_corrcoef(golds, preds) for
// any number of classes (0 when a marginal is constant).
func MatthewsCorrcoef(ps [][2]float64) float64 {
	labels := map[float64]int{}
	for _, p := range ps {
		labels[p[0]], labels[p[1]] = 0, 0
	}
	keys := make([]float64, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	for i, k := range keys {
		labels[k] = i
	}
	k := len(keys)
	tSum, pSum := make([]float64, k), make([]float64, k)
	correct := 0.0
	for _, p := range ps {
		g, q := labels[p[0]], labels[p[1]]
		tSum[g]++
		pSum[q]++
		if g == q {
			correct++
		}
	}
	n := float64(len(ps))
	dot := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	covYtYp := correct*n - dot(tSum, pSum)
	covYpYp := n*n - dot(pSum, pSum)
	covYtYt := n*n - dot(tSum, tSum)
	if covYpYp*covYtYt == 0 {
		return 0
	}
	return covYtYp / math.Sqrt(covYtYt*covYpYp)
}
