package metrics

import (
	"math"
	"testing"
)

// Hand-computed exact McNemar p-values: 2·Σ_{i≤min(b,c)} C(b+c,i) / 2^(b+c).
func TestMcNemarExactHandCases(t *testing.T) {
	cases := []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},                     // no discordant pairs
		{0, 5, 2.0 / 32},              // 0.0625: five wins out of five is not significant
		{0, 6, 2.0 / 64},              // 0.03125: six out of six is
		{1, 9, 2 * 11.0 / 1024},       // (C(10,0)+C(10,1))/2^10, doubled
		{9, 1, 2 * 11.0 / 1024},       // symmetric
		{2, 3, 1},                     // 2·16/32 = 1
		{3, 3, 1},                     // capped at 1
		{4, 16, 2 * 6196.0 / 1048576}, // Σ_{i≤4} C(20,i) = 1+20+190+1140+4845
	}
	for _, c := range cases {
		if got := McNemarExact(c.b, c.c); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("McNemarExact(%d,%d) = %.15g, want %.15g", c.b, c.c, got, c.want)
		}
	}
	// Large n stays finite and tiny: 0 vs 2000 discordant docs.
	if p := McNemarExact(0, 2000); !(p > 0 || p == 0) || p > 1e-300 {
		t.Errorf("McNemarExact(0,2000) = %g", p)
	}
}

func meanDelta(a, b []float64) func([]int) float64 {
	return func(idx []int) float64 {
		s := 0.0
		for _, i := range idx {
			s += b[i] - a[i]
		}
		return s / float64(len(idx))
	}
}

func TestPairedBootstrap(t *testing.T) {
	// Every doc improves by exactly 0.25: the interval is the point, and
	// no resample is as far from 0.25 as 0.25 is from 0.
	a := []float64{0.1, 0.5, 0.2, 0.9, 0.3, 0.4}
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[i] + 0.25
	}
	r := PairedBootstrap(len(a), 999, 7, meanDelta(a, b))
	if math.Abs(r.Low-0.25) > 1e-12 || math.Abs(r.High-0.25) > 1e-12 || r.P != 1.0/1000 {
		t.Errorf("constant shift: %+v", r)
	}
	// Differences +1,-1 alternate: mean 0, p = 1, interval around 0.
	a2 := make([]float64, 40)
	b2 := make([]float64, 40)
	for i := range b2 {
		b2[i] = float64(1 - 2*(i%2))
	}
	r = PairedBootstrap(40, 2000, 7, meanDelta(a2, b2))
	if r.Delta != 0 || r.P != 1 || !(r.Low < 0 && r.High > 0) {
		t.Errorf("symmetric: %+v", r)
	}
	// The percentile interval of a mean of ±1 differences is close to the
	// normal one: ±1.96·sd/√n with sd = 1.0127 (n-1) → ±0.3139.
	if w := (r.High - r.Low) / 2; math.Abs(w-0.3139) > 0.04 {
		t.Errorf("half-width %.4f, want ≈0.3139", w)
	}
	// Same seed, same result; another seed, another result (continuous
	// differences, so percentiles do not land on the same lattice point).
	for i := range b2 {
		b2[i] = math.Sin(float64(i))
	}
	r = PairedBootstrap(40, 2000, 7, meanDelta(a2, b2))
	r2 := PairedBootstrap(40, 2000, 7, meanDelta(a2, b2))
	r3 := PairedBootstrap(40, 2000, 8, meanDelta(a2, b2))
	if r2 != r {
		t.Errorf("not reproducible: %+v vs %+v", r, r2)
	}
	if r3.Low == r.Low && r3.High == r.High {
		t.Errorf("seed ignored: %+v", r3)
	}
}

func TestPercentileNumpyLinear(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	// numpy.percentile([1..5], 2.5) = 1.1, 97.5 → 4.9
	if got := percentile(xs, 0.025); math.Abs(got-1.1) > 1e-12 {
		t.Errorf("p2.5 = %v", got)
	}
	if got := percentile(xs, 0.975); math.Abs(got-4.9) > 1e-12 {
		t.Errorf("p97.5 = %v", got)
	}
}
