package vmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulp64 is the distance of a and b in float64 ulps (±0 equal).
func ulp64(a, b float64) int64 {
	ord := func(v float64) int64 {
		u := math.Float64bits(v)
		if u>>63 != 0 {
			return -int64(u &^ (1 << 63))
		}
		return int64(u)
	}
	d := ord(a) - ord(b)
	return max(d, -d)
}

// exp64Inputs are random x over Exp64's whole finite range and beyond,
// uniform and by random bits, plus the edges.
func exp64Inputs() []float64 {
	rng := rand.New(rand.NewPCG(64, 64))
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, expHi64, -708.39, -708.4, -744.44, -745.13, -745.14, 700, -700}
	for range 1 << 20 {
		xs = append(xs, rng.Float64()*1480-760)
	}
	for range 1 << 18 {
		x := math.Float64frombits(rng.Uint64())
		if math.Abs(x) < 800 {
			xs = append(xs, x)
		}
	}
	return xs
}

// TestExp64Accuracy: every kernel within 2 ulps of Go's math.Exp (which
// is itself up to ~1.4 ulps off: e^30.143976674829105), subnormal results
// included; TestExp64Exact bounds the error against the exact value.
func TestExp64Accuracy(t *testing.T) {
	xs := exp64Inputs()
	for _, k := range kernels() {
		got := make([]float64, len(xs))
		k.exp64(got, xs)
		var worst int64
		for i, x := range xs {
			want := math.Exp(x)
			if x > 709 && x <= expHi64 {
				want = exactExp(x) // Go's math.Exp gives +Inf from about 709.4 on
			}
			d := ulp64(got[i], want)
			if d > 2 {
				t.Fatalf("%s: Exp64(%v) = %v, math.Exp %v: %d ulps", k.name, x, got[i], want, d)
			}
			worst = max(worst, d)
		}
		t.Logf("%s: %d inputs, at most %d ulp from math.Exp", k.name, len(xs), worst)
	}
}

// TestExp64KernelsAgree: the Go and assembly kernels give the same bits,
// and each element's result depends on its value only (any offset and
// length: the vector loop and the tail).
func TestExp64KernelsAgree(t *testing.T) {
	xs := exp64Inputs()
	want := make([]float64, len(xs))
	exp64Go(want, xs)
	for _, k := range kernels() {
		for _, off := range []int{0, 1, 3} {
			for _, n := range []int{1, 2, 5, 4099} {
				got := make([]float64, n)
				k.exp64(got, xs[off:off+n])
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[off+i]) {
						t.Fatalf("%s: Exp64(%v) at offset %d of %d: %v, Go kernel %v", k.name, xs[off+i], off+i, n, got[i], want[off+i])
					}
				}
			}
		}
		got := make([]float64, len(xs))
		copy(got, xs)
		k.exp64(got, got) // in place
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s in place: Exp64(%v) = %v, Go kernel %v", k.name, xs[i], got[i], want[i])
			}
		}
	}
}

func TestExp64Special(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct{ x, want float64 }{
		{0, 1}, {math.Copysign(0, -1), 1}, {inf, inf}, {-inf, 0}, {math.NaN(), math.NaN()},
		{math.Nextafter(expHi64, inf), inf}, {710, inf}, {math.MaxFloat64, inf},
		{-math.MaxFloat64, 0}, {-746, 0}, {-750, 0}, {-1e4, 0}, {5e-324, 1}, {-5e-324, 1},
		{-744.44, math.Exp(-744.44)}, {-720, math.Exp(-720)},
	}
	for _, k := range kernels() {
		for _, tc := range tests {
			y := []float64{tc.x}
			k.exp64(y, y)
			if !(math.Float64bits(y[0]) == math.Float64bits(tc.want) || math.IsNaN(y[0]) && math.IsNaN(tc.want)) {
				t.Errorf("%s Exp64(%v) = %v, want %v", k.name, tc.x, y[0], tc.want)
			}
		}
	}
}

// exactExp is e^x rounded to float64, computed in 200-bit arithmetic
// (x = k·ln 2 + r, e^r by its series), for normal results.
func exactExp(x float64) float64 {
	const prec = 200
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	ln2 := new(big.Float).SetPrec(prec)
	ln2.SetString("0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863326996418687542")
	k := math.Round(x / math.Ln2)
	r := new(big.Float).SetPrec(prec).Sub(f(x), new(big.Float).SetPrec(prec).Mul(f(k), ln2))
	sum, term := f(1), f(1)
	for i := 1; i < 60; i++ {
		term.Mul(term, r)
		term.Quo(term, f(float64(i)))
		sum.Add(sum, term)
	}
	sum.SetMantExp(sum, int(k))
	v, _ := sum.Float64()
	return v
}

// TestExp64Exact: within 1 ulp of the exact value (measured: under one
// on every input here) for normal results.
func TestExp64Exact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 64))
	xs := make([]float64, 8000)
	for i := range xs {
		xs[i] = rng.Float64()*1410 - 705
	}
	xs = append(xs, 30.143976674829105, 709.7, -708)
	got := make([]float64, len(xs))
	for _, k := range kernels() {
		k.exp64(got, xs)
		for i, x := range xs {
			if d := ulp64(got[i], exactExp(x)); d > 1 {
				t.Fatalf("%s: Exp64(%v) = %v, exact %v: %d ulps", k.name, x, got[i], exactExp(x), d)
			}
		}
	}
}
