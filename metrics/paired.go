package metrics

import (
	"fmt"
	"math"
)

// Paired test names (PairedResult.Test).
const (
	TestMcNemar   = "mcnemar"   // exact McNemar test on 0/1 values
	TestBootstrap = "bootstrap" // paired bootstrap of the aggregation
	TestZ         = "z"         // unpaired z-test from two stderrs (ZTest)
)

// PairedResult is a significance test of one metric's change between two
// runs over the same documents.
type PairedResult struct {
	Test string  // TestMcNemar or TestBootstrap
	P    float64 // two-sided p-value
	B, C int     // McNemar: docs right only in run A, right only in run B
	// Low, High: 95 % interval of agg(B) - agg(A): the bootstrap's
	// percentile interval, or for McNemar the Wald interval of a paired
	// difference of proportions (McNemarInterval).
	Low, High float64
}

// McNemarInterval is the 95 % Wald interval of the paired difference of
// proportions (C - B)/n, with b docs right only in run A, c right only in
// run B, out of n: d ± 1.96·√(b + c − (c − b)²/n)/n.
func McNemarInterval(b, c, n int) (low, high float64) {
	if n == 0 {
		return 0, 0
	}
	fn := float64(n)
	d := float64(c-b) / fn
	v := float64(b+c) - float64((c-b)*(c-b))/fn
	se := math.Sqrt(math.Max(v, 0)) / fn
	return d - 1.96*se, d + 1.96*se
}

// PairedTest tests the change of a metric from run A to run B, given its
// per-document values a and b (paired by index) and its aggregation:
// McNemar's exact test when the aggregation is a mean of 0/1 values, else a
// PairedBootstrap (iters resamples, seeded) of agg(B) - agg(A). An
// aggregation that cannot be computed on the values is an error.
func PairedTest(agg string, a, b []Value, iters int, seed uint64) (PairedResult, error) {
	if agg == AggMean && binary(a) && binary(b) {
		var r PairedResult
		for i := range a {
			x, _ := a[i].Float()
			y, _ := b[i].Float()
			if x == 1 && y == 0 {
				r.B++
			} else if x == 0 && y == 1 {
				r.C++
			}
		}
		r.Test, r.P = TestMcNemar, McNemarExact(r.B, r.C)
		r.Low, r.High = McNemarInterval(r.B, r.C, len(a))
		return r, nil
	}
	if _, err := Aggregate(agg, a); err != nil {
		return PairedResult{}, fmt.Errorf("cannot resample: %w", err)
	}
	bufA, bufB := make([]Value, len(a)), make([]Value, len(b))
	delta := func(idx []int) float64 {
		bufA, bufB = bufA[:len(idx)], bufB[:len(idx)]
		for k, i := range idx {
			bufA[k], bufB[k] = a[i], b[i]
		}
		va, _ := Aggregate(agg, bufA)
		vb, _ := Aggregate(agg, bufB)
		return vb - va
	}
	r := PairedBootstrap(len(a), iters, seed, delta)
	return PairedResult{Test: TestBootstrap, P: r.P, Low: r.Low, High: r.High}, nil
}

// binary reports whether every value is the number 0 or 1.
func binary(xs []Value) bool {
	for _, x := range xs {
		f, ok := x.Float()
		if !ok || (f != 0 && f != 1) {
			return false
		}
	}
	return true
}

// ZTest is the unpaired two-sided z-test of a change delta between two
// aggregates with standard errors seA and seB, and its 95 % normal
// interval. ok is false when both stderrs are zero (no test possible).
func ZTest(delta, seA, seB float64) (p, low, high float64, ok bool) {
	if !(seA > 0 || seB > 0) {
		return 1, delta, delta, false
	}
	z := delta / math.Sqrt(seA*seA+seB*seB)
	p = math.Erfc(math.Abs(z) / math.Sqrt2)
	low = delta - 1.959964*math.Sqrt(seA*seA+seB*seB)
	return p, low, 2*delta - low, true
}

// defaultAgg is lm-eval's default aggregation per registered metric
// (api/metrics.py); metrics not listed aggregate by mean.
var defaultAgg = map[string]string{
	"perplexity":      AggPerplexity,
	"word_perplexity": AggWeightedPerplexity,
	"byte_perplexity": AggWeightedPerplexity,
	"bits_per_byte":   AggBitsPerByte,
	"f1":              AggF1,
	"mcc":             AggMCC,
}

// DefaultAggregation is lm-eval's default aggregation of a registered
// metric, for results files whose task config does not name one.
func DefaultAggregation(metric string) string {
	if a, ok := defaultAgg[metric]; ok {
		return a
	}
	return AggMean
}
