package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMatMulInt8: every output is the exact integer sum, for row counts
// across the 4/8/16-row groups, widths across the 16-row blocks, lengths
// with partial dwords and codes at both ends of int8 (−128, 127) — on the
// Go kernel everywhere and the assembly where the CPU has AVX512_VNNI.
func TestMatMulInt8(t *testing.T) {
	kernels := map[string]func(u []uint8, p []int32, k4, mq int, out []int32){"go": intsGo}
	if HasInt8MatMul() {
		kernels["vnni"] = defaultKernel().i8.ints
	} else {
		t.Log("no AVX512_VNNI here: the Go kernel only")
	}
	rng := rand.New(rand.NewPCG(4, 5))
	code := func() int8 {
		switch rng.IntN(10) {
		case 0:
			return -128
		case 1:
			return 127
		}
		return int8(rng.IntN(256) - 128)
	}
	for _, sh := range [][3]int{{1, 1, 1}, {3, 15, 3}, {16, 16, 4}, {17, 33, 63}, {40, 100, 300}, {5, 7, 4099}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, w := make([]int8, m*k), make([]int8, n*k)
		for i := range a {
			a[i] = code()
		}
		for i := range w {
			w[i] = code()
		}
		wm := newInt8Matrix(w, n, k)
		for name, kern := range kernels {
			for _, threads := range []int{1, 3} {
				ldc := n + 2
				c := make([]int32, m*ldc)
				matMulInt8(kern, c, ldc, a, m, wm, threads)
				for r := range m {
					for j := range n {
						var want int32
						for x := range k {
							want += int32(a[r*k+x]) * int32(w[j*k+x])
						}
						if c[r*ldc+j] != want {
							t.Fatalf("%s, %d threads, [%d×%d]·[%d×%d]ᵀ: c[%d][%d] = %d, want %d", name, threads, m, k, n, k, r, j, c[r*ldc+j], want)
						}
					}
				}
			}
		}
	}
}

// TestInt8MatrixFrom: the weight read as float32 rows (a block of rows at
// a time) gives MatMulInt8's sums, kept or streamed (MatMulInt8Rows), and
// a value that is no int8 code (1.5, 200) is refused.
func TestInt8MatrixFrom(t *testing.T) {
	if !HasInt8MatMul() {
		t.Skip("no AVX512_VNNI: Int8MatrixFrom and MatMulInt8Rows need the assembly (TestMatMulInt8 checks the arithmetic in Go)")
	}
	rng := rand.New(rand.NewPCG(6, 7))
	m, n, k := 5, 2*int8Block+37, 70
	a, w := make([]int8, m*k), make([]float32, n*k)
	for i := range a {
		a[i] = int8(rng.IntN(256) - 128)
	}
	for i := range w {
		w[i] = float32(rng.IntN(256) - 128)
	}
	rows := func(j0, j1 int, dst []float32) { copy(dst, w[j0*k:j1*k]) }
	want := make([]int32, m*n)
	for r := range m {
		for j := range n {
			for x := range k {
				want[r*n+j] += int32(a[r*k+x]) * int32(w[j*k+x])
			}
		}
	}
	wm, ok := Int8MatrixFrom(n, k, rows)
	if !ok {
		t.Fatal("Int8MatrixFrom refused int8 codes")
	}
	kept, streamed := make([]int32, m*n), make([]int32, m*n)
	MatMulInt8(kept, n, a, m, wm, 2)
	if !MatMulInt8Rows(streamed, n, a, m, n, k, rows, 2) {
		t.Fatal("MatMulInt8Rows refused int8 codes")
	}
	for i := range want {
		if kept[i] != want[i] || streamed[i] != want[i] {
			t.Fatalf("output %d: kept %d, streamed %d, want %d", i, kept[i], streamed[i], want[i])
		}
	}
	for _, bad := range []float32{1.5, 200, -129} {
		w[n*k-1] = bad
		if _, ok := Int8MatrixFrom(n, k, rows); ok {
			t.Errorf("Int8MatrixFrom took %g as a code", bad)
		}
		if MatMulInt8Rows(streamed, n, a, m, n, k, rows, 2) {
			t.Errorf("MatMulInt8Rows took %g as a code", bad)
		}
	}
}

func BenchmarkMatMulInt8(b *testing.B) {
	if !HasInt8MatMul() {
		b.Skip("no AVX512_VNNI")
	}
	for _, sh := range [][3]int{{1, 8192, 2048}, {16, 8192, 2048}, {256, 8192, 2048}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, w := make([]int8, m*k), make([]int8, n*k)
		for i := range a {
			a[i] = int8(i * 7)
		}
		for i := range w {
			w[i] = int8(i * 13)
		}
		wm := NewInt8Matrix(w, n, k)
		c := make([]int32, m*n)
		b.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(b *testing.B) {
			for b.Loop() {
				MatMulInt8(c, n, a, m, wm, 2)
			}
			b.ReportMetric(float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmac/s")
		})
	}
}
