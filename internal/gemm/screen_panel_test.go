package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// panelCase is a bfloat16 weight [n, k] with rows that exercise the
// copy's edge cases: all zero, tiny (no codes), subnormal values, one
// large value among small ones.
func panelCase(rng *rand.Rand, n, k int) []uint16 {
	w, _ := randBF16(rng, n*k)
	for j := range n {
		row := w[j*k : (j+1)*k]
		switch j % 7 {
		case 3:
			clear(row)
		case 5:
			for i := range row {
				row[i] = uint16(rng.IntN(1<<7)) | uint16(rng.IntN(2))<<15 // subnormal only
			}
		case 6:
			row[rng.IntN(k)] = 0x4480 // 1024
		}
	}
	return w
}

// TestScreenPanels: the copy made from bfloat16 panels is the one
// QuantizeRowsI8 makes from the widened rows, byte for byte (padding
// included), with the same scales and bounds but each row's error norm
// (summed in another order, within 1e-5 and never below the exact norm),
// for panels cut short, a last block of 16 rows or fewer, and K at the
// step and beyond; a non-finite weight anywhere refuses the copy. On CPUs
// without the panel kernels ScreenI8 takes QuantizeRowsI8's way, which
// this checks too.
func TestScreenPanels(t *testing.T) {
	kern := defaultKernel().i8
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][2]int{{1, 4}, {17, 36}, {64, 8}, {80, 100}, {101, 64}, {96, 2048}} {
		n, k := sh[0], sh[1]
		w := panelCase(rng, n, k)
		pb := packBBF16(defaultKernelBF16(), w, k, n, k, true)
		wide := make([]float32, n*k)
		pb.RowsF32(0, n, wide)
		want := quantizeRowsI8(kern, n, k, pb.RowsF32, 1)
		if want == nil {
			t.Fatalf("[%d, %d]: no copy", n, k)
		}
		for name, got := range map[string]*RowsI8{"bf16": pb.ScreenI8(2), "f32": packB(defaultKernel(), wide, k, n, k, true).ScreenI8(2)} {
			checkSameCopy(t, fmt.Sprintf("%s [%d, %d]", name, n, k), got, want, wide)
		}
		for _, at := range []int{0, n*k - 1, rng.IntN(n * k)} {
			for _, bad := range []uint16{0x7fc0, 0xff80} { // NaN, −Inf
				v := slices.Clone(w)
				v[at] = bad
				v32 := slices.Clone(wide)
				v32[at] = WidenBF16(bad)
				if packBBF16(defaultKernelBF16(), v, k, n, k, true).ScreenI8(2) != nil ||
					packB(defaultKernel(), v32, k, n, k, true).ScreenI8(2) != nil {
					t.Fatalf("[%d, %d]: a copy with %#x at %d", n, k, bad, at)
				}
			}
		}
	}
}

// checkSameCopy fails unless got is want (made from the weight w) but for
// its rows' error norms, which must be within 1e-5 and never below the
// exact ones.
func checkSameCopy(t *testing.T, name string, got, want *RowsI8, w []float32) {
	t.Helper()
	n := want.N
	if got == nil {
		t.Fatalf("%s: no copy", name)
	}
	if !slices.Equal(got.u, want.u) || !slices.Equal(got.q, want.q) {
		t.Fatalf("%s: codes differ from QuantizeRowsI8's", name)
	}
	for j := range n {
		exact := exactErrNorm(want, w, j)
		g, r := got.errL2[j], want.errL2[j]
		if got.scale[j] != want.scale[j] || got.absMax[j] != want.absMax[j] || got.errMax[j] != want.errMax[j] ||
			math.Abs(float64(g-r)) > 1e-5*float64(r) || float64(g) < exact {
			t.Fatalf("%s row %d: scale, absMax, errMax, errL2 %g %g %g %g; QuantizeRowsI8 %g %g %g %g; exact norm %g",
				name, j, got.scale[j], got.absMax[j], got.errMax[j], g, want.scale[j], want.absMax[j], want.errMax[j], r, exact)
		}
	}
	if got.maxAbs != want.maxAbs || got.maxErr != want.maxErr {
		t.Fatalf("%s: largest bounds %g %g; QuantizeRowsI8 %g %g", name, got.maxAbs, got.maxErr, want.maxAbs, want.maxErr)
	}
}

// TestScreenTinyRows: a row whose errors' squares would be subnormal in
// float32 gets the bound K·E² instead, which holds its exact error norm.
func TestScreenTinyRows(t *testing.T) {
	n, k := 3, 40
	w := make([]float32, n*k)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range w {
		w[i] = float32(rng.NormFloat64()) * 0x1p-90 // codes on 2⁻¹⁰⁰ < max: errors near 2⁻⁹⁸
	}
	for kname, kern := range screenKernels() {
		s := quantizeRowsI8(kern, n, k, rowOf(w, k), 1)
		for j := range n {
			if exact := exactErrNorm(s, w, j); float64(s.errL2[j]) < exact {
				t.Errorf("%s row %d: errL2 %g below the exact norm %g", kname, j, s.errL2[j], exact)
			}
		}
	}
}

// exactErrNorm is the 2-norm of row j's quantization errors in s, the
// weight [N, K] being w, in float64.
func exactErrNorm(s *RowsI8, w []float32, j int) float64 {
	sum := 0.0
	for i := range s.K {
		e := float64(w[j*s.K+i]) - float64(s.scale[j])*float64(s.code(j, i))
		sum += e * e
	}
	return math.Sqrt(sum)
}
