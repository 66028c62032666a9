package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestQ4DotOrder: a step's order covers its 64 values once, odd k first.
func TestQ4DotOrder(t *testing.T) {
	seen := map[int]bool{}
	for i, k := range q4DotOrder {
		if seen[k] || k < 0 || k >= q4DotStep || (k%2 == 1) != (i < q4DotStep/2) {
			t.Fatalf("q4DotOrder[%d] = %d", i, k)
		}
		seen[k] = true
	}
}

// TestMatMulQ4Dot: where the CPU has the dot kernels, MatMulQ4Dot gives
// q4DotReference's bits for 1 to 9 rows, 1 to 4 threads, odd and even
// column counts, blocks of one to four steps, every table kind, with and
// without offsets; and stays within bfloat16 rounding of the activations
// of MatMulQ4's product.
func TestMatMulQ4Dot(t *testing.T) {
	if kn := defaultKernel().q4; kn == nil || kn.dot == nil {
		t.Skipf("kernel %s has no VDPBF16PS 4-bit kernels (AVX512_BF16)", defaultKernel().name)
	}
	if q4DotHere() == nil {
		t.Fatal("the dot kernels failed their self-check against q4DotReference")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []q4Case{
		{1, 64, 1, 64, 1}, {1, 128, 67, 64, 2}, {2, 256, 130, 128, 2}, {3, 192, 65, 64, 1},
		{4, 512, 33, 256, 2}, {5, 256, 200, 64, 3}, {8, 1024, 97, 128, 2}, {9, 128, 70, 64, 4},
		{1, 2048, 300, 64, 2}, {1, 4096, 130, 128, 2},
	}
	for _, s := range cases {
		for tname, table := range q4Tables {
			for _, off := range []bool{false, true} {
				b := randQ4(rng, s.k, s.n, s.block, off)
				b.Table, b.RoundBF16 = table, true
				name := fmt.Sprintf("m%d_k%d_n%d_b%d/%s/offset=%v", s.m, s.k, s.n, s.block, tname, off)
				if !HasQ4Dot(b) {
					t.Fatalf("%s: HasQ4Dot false", name)
				}
				a := randSlice(rng, s.m*s.k)
				want, got := make([]float32, s.m*s.n), make([]float32, s.m*s.n)
				q4DotReference(want, s.n, a, s.k, s.m, b)
				MatMulQ4Dot(got, s.n, a, s.k, s.m, b, s.threads)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s: C[%d] = %g, reference %g", name, i, got[i], want[i])
					}
				}
				f32 := make([]float32, s.m*s.n)
				MatMulQ4(f32, s.n, a, s.k, s.m, b, 1)
				if msg := closeToDot(got, f32, a, s.m, b); msg != "" {
					t.Fatalf("%s: %s", name, msg)
				}
			}
		}
	}
}

// closeToDot returns "" if each dot result lies within the activations'
// bfloat16 rounding (2^-8 of the magnitude sum, plus f32 sums) of the
// f32 product, else the first that does not.
func closeToDot(dot, f32, a []float32, m int, b *PackedQ4) string {
	w := make([]float32, b.N*b.K)
	b.Dequantize(w)
	for r := range m {
		for n := range b.N {
			var mag float64
			for k := range b.K {
				mag += math.Abs(float64(a[r*b.K+k]) * float64(w[n*b.K+k]))
			}
			d := math.Abs(float64(dot[r*b.N+n]) - float64(f32[r*b.N+n]))
			if !(d <= mag*(1.0/256+1e-5)) {
				return fmt.Sprintf("C[%d,%d] = %g, f32 product %g (magnitude %g)", r, n, dot[r*b.N+n], f32[r*b.N+n], mag)
			}
		}
	}
	return ""
}

// TestMatMulQ4DotRows: a row's results do not depend on the rows
// computed with it (the one-row and four-row kernels sum alike).
func TestMatMulQ4DotRows(t *testing.T) {
	if defaultKernel().q4 == nil || defaultKernel().q4.dot == nil {
		t.Skipf("kernel %s has no VDPBF16PS 4-bit kernels (AVX512_BF16)", defaultKernel().name)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	const k, n = 512, 131
	b := randQ4(rng, k, n, 64, false)
	b.RoundBF16 = true
	a := randSlice(rng, 7*k)
	all := make([]float32, 7*n)
	MatMulQ4Dot(all, n, a, k, 7, b, 2)
	for r := range 7 {
		one := make([]float32, n)
		MatMulQ4Dot(one, n, a[r*k:], k, 1, b, 1)
		for j := range n {
			if math.Float32bits(one[j]) != math.Float32bits(all[r*n+j]) {
				t.Fatalf("row %d column %d: alone %g, with 6 others %g", r, j, one[j], all[r*n+j])
			}
		}
	}
}
