package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

var (
	inf  = float32(math.Inf(1))
	nan  = float32(math.NaN())
	negZ = float32(math.Copysign(0, -1))
)

// apply runs fn of k on the single value x.
func apply(fn func(dst, src []float32), x float32) float32 {
	y := []float32{x}
	fn(y, y)
	return y[0]
}

func same(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

func TestSpecialValues(t *testing.T) {
	hiNext := math.Nextafter32(expHi, inf)
	tests := []struct {
		fn      string
		x, want float32
	}{
		{"Exp", 0, 1}, {"Exp", negZ, 1}, {"Exp", inf, inf}, {"Exp", -inf, 0},
		{"Exp", nan, nan}, {"Exp", hiNext, inf}, {"Exp", 89, inf},
		{"Exp", math.MaxFloat32, inf}, {"Exp", -math.MaxFloat32, 0},
		{"Exp", -104, 0}, {"Exp", -1000, 0},
		{"Exp", 0x1p-149, 1}, {"Exp", -0x1p-149, 1},
		{"Logistic", 0, 0.5}, {"Logistic", negZ, 0.5}, {"Logistic", inf, 1},
		{"Logistic", -inf, 0}, {"Logistic", nan, nan}, {"Logistic", 100, 1},
		{"Logistic", math.MaxFloat32, 1}, {"Logistic", -math.MaxFloat32, 0},
		{"Logistic", -200, 0},
		{"SiLU", 0, 0}, {"SiLU", negZ, negZ}, {"SiLU", inf, inf}, {"SiLU", -inf, negZ},
		{"SiLU", nan, nan}, {"SiLU", math.MaxFloat32, math.MaxFloat32},
		{"SiLU", -math.MaxFloat32, negZ}, {"SiLU", 100, 100}, {"SiLU", -200, negZ},
	}
	for _, k := range kernels() {
		for _, tc := range tests {
			fn := map[string]func(d, s []float32){"Exp": k.exp, "Logistic": k.logistic, "SiLU": k.silu}[tc.fn]
			if got := apply(fn, tc.x); !same(got, tc.want) {
				t.Errorf("%s %s(%v) = %v (%#08x), want %v", k.name, tc.fn, tc.x, got,
					math.Float32bits(got), tc.want)
			}
		}
	}
}

// TestUnderflow checks that Exp is subnormal, not flushed, below the normal
// range, and Logistic and SiLU never NaN or out of [0, 1] / sign for large |x|.
func TestUnderflow(t *testing.T) {
	for _, k := range kernels() {
		for x := float32(-87); x > -110; x -= 0.01 {
			e := apply(k.exp, x)
			if e < 0 || e > 0x1p-126 && x < -87.34 || e != e {
				t.Fatalf("%s Exp(%v) = %v", k.name, x, e)
			}
			if want := math.Exp(float64(x)); want > 0x1p-149 && e == 0 {
				t.Fatalf("%s Exp(%v) = 0, want %v (subnormal)", k.name, x, want)
			}
		}
		for _, x := range []float32{-1e38, -1e20, -200, -120, -100, 100, 200, 1e20, 1e38} {
			l, s := apply(k.logistic, x), apply(k.silu, x)
			if !(l >= 0 && l <= 1) || s != s || math.Signbit(float64(s)) != (x < 0) {
				t.Errorf("%s Logistic(%v) = %v, SiLU = %v", k.name, x, l, s)
			}
		}
	}
}

// TestDeterminism checks that each result depends on the element's value
// only: a slice at any offset and length (the vector loop and the tail),
// in place or not, gives bit for bit the results of one-element calls.
func TestDeterminism(t *testing.T) {
	src := make([]float32, 96)
	randomInputs(7, src)
	for _, k := range kernels() {
		for _, f := range functions {
			fn := f.of(k)
			one := make([]float32, len(src))
			for i, x := range src {
				one[i] = apply(fn, x)
			}
			dst := make([]float32, len(src))
			for off := range 9 {
				for n := 0; off+n <= len(src); n++ {
					clear(dst)
					fn(dst[off:off+n], src[off:off+n])
					inPlace := append([]float32(nil), src[off:off+n]...)
					fn(inPlace, inPlace)
					for i := range n {
						if !same(dst[off+i], one[off+i]) || !same(inPlace[i], one[off+i]) {
							t.Fatalf("%s %s: offset %d length %d: element %d (x=%v) = %v / %v in place, alone %v",
								k.name, f.name, off, n, i, src[off+i], dst[off+i], inPlace[i], one[off+i])
						}
					}
				}
			}
		}
	}
}

// TestKernelsAgree checks that the assembly and Go kernels agree within
// the error bound (they run the same algorithm, but the Go kernel rounds
// each product where the assembly uses FMA).
func TestKernelsAgree(t *testing.T) {
	if archKernel == nil {
		t.Skip("no assembly kernel on this CPU")
	}
	xs := make([]float32, 1<<16)
	a, b := make([]float32, len(xs)), make([]float32, len(xs))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = float32(-110 + 205*rng.Float64())
	}
	for _, f := range functions {
		f.of(goKernel)(a, xs)
		f.of(archKernel)(b, xs)
		diff := 0
		for i := range xs {
			if d := ulpDist(a[i], b[i]); d > f.maxULP && math.Abs(float64(a[i]-b[i])) > 1e-44 {
				t.Errorf("%s(%v): go %v, %s %v", f.name, xs[i], a[i], archKernel.name, b[i])
			} else if d != 0 {
				diff++
			}
		}
		t.Logf("%s: %d of %d results differ", f.name, diff, len(xs))
	}
}

func TestChooseAndLengths(t *testing.T) {
	if got := choose(nil, ""); got != goKernel {
		t.Errorf("choose(nil) = %s", got.name)
	}
	if archKernel != nil {
		if got := choose(archKernel, "go"); got != goKernel {
			t.Errorf(`choose(arch, "go") = %s`, got.name)
		}
		if got := choose(archKernel, ""); got != archKernel {
			t.Errorf(`choose(arch, "") = %s`, got.name)
		}
	}
	if k := Kernel(); k != "go" && k != "avx2+fma" && k != "avx512" {
		t.Errorf("Kernel() = %q", k)
	}
	t.Logf("Kernel() = %s", Kernel())
	Exp(nil, nil)
	defer func() {
		if recover() == nil {
			t.Error("Exp with len(dst) != len(src) did not panic")
		}
	}()
	Exp(make([]float32, 3), make([]float32, 4))
}

// TestExported checks that the exported functions run the active kernel.
func TestExported(t *testing.T) {
	xs := []float32{-3, -1, 0, 0.5, 2, 9, 10, 11, 12}
	for _, f := range []struct {
		name string
		fn   func(dst, src []float32)
		ref  func(dst, src []float32)
	}{{"Exp", Exp, active.exp}, {"Logistic", Logistic, active.logistic}, {"SiLU", SiLU, active.silu}} {
		got, want := make([]float32, len(xs)), make([]float32, len(xs))
		f.fn(got, xs)
		f.ref(want, xs)
		for i := range xs {
			if !same(got[i], want[i]) {
				t.Errorf("%s(%v) = %v, want %v", f.name, xs[i], got[i], want[i])
			}
		}
	}
}
