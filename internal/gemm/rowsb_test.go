package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMatMulInPlaceB: every kernel's few-row product with B in place has
// MatMul's bits, for whole and partial groups of four rows, strided a, b
// and c (whose gaps it leaves alone), k from 1, widths of whole wide
// blocks and with a narrow tail.
func TestMatMulInPlaceB(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 61))
	for _, kn := range available() {
		if kn.rowsB == nil {
			t.Errorf("%s: no rowsB kernel", kn.name)
			continue
		}
		w := kn.rowsB.cols
		for _, s := range []struct{ m, k, n int }{{1, 1, w}, {4, 7, 2 * w}, {5, 64, w}, {3, 300, 4 * w}, {8, 129, w}, {9, 33, 8 * w}, {6, 40, 5 * w}} {
			name := fmt.Sprintf("%s/m%d_k%d_n%d", kn.name, s.m, s.k, s.n)
			lda, ldb, ldc := s.k+3, s.n+5, s.n+2
			a, b := randSlice(rng, s.m*lda), randSlice(rng, s.k*ldb)
			a[0] = float32(math.Copysign(0, -1)) // row 0, k 0: a -0 product
			c := nanSlice(s.m * ldc)
			matMulInPlaceB(kn, c, ldc, a, lda, s.m, b, ldb, s.k, s.n)
			want := make([]float32, s.m*s.n)
			dense := make([]float32, s.k*s.n)
			for p := range s.k {
				copy(dense[p*s.n:(p+1)*s.n], b[p*ldb:])
			}
			MatMul(want, s.n, a, lda, s.m, PackB(dense, s.k, s.n, s.n, false), 1)
			if msg := stridedMismatch(c, ldc, want, s.m, s.n); msg != "" {
				t.Errorf("%s: %s", name, msg)
			}
		}
	}
}

// stridedMismatch compares m rows of n outputs at stride ldc in c, whose
// gaps must hold NaN still, with want [m, n] bit for bit: the first
// difference, or "".
func stridedMismatch(c []float32, ldc int, want []float32, m, n int) string {
	for r := range m {
		if msg := firstBitDiff(c[r*ldc:r*ldc+n], want[r*n:(r+1)*n]); msg != "" {
			return fmt.Sprintf("row %d differs from MatMul: %s", r, msg)
		}
		for j := n; j < ldc && r*ldc+j < len(c); j++ {
			if !math.IsNaN(float64(c[r*ldc+j])) {
				return fmt.Sprintf("C[%d, %d] past n written", r, j)
			}
		}
	}
	return ""
}

// TestMatMulInPlaceBZeroChain: a chain of -0 products ends +0, as MatMul's
// (from +0), on every kernel.
func TestMatMulInPlaceBZeroChain(t *testing.T) {
	for _, kn := range available() {
		w := kn.rowsB.cols
		a := []float32{float32(math.Copysign(0, -1)), 0, 0, 0}
		b := make([]float32, w)
		for i := range b {
			b[i] = 1
		}
		c := make([]float32, 4*w)
		matMulInPlaceB(kn, c, w, a, 1, 4, b, w, 1, w)
		if math.Signbit(float64(c[0])) {
			t.Errorf("%s: -0·1 from +0 gave -0", kn.name)
		}
	}
}

// BenchmarkInPlaceB is decode attention's value product on one thread: 4
// rows (a query group) times a 1056 × 64 value cache read in place, per
// head, cycling through 64 MiB of caches (streamed from DRAM as in a
// decode step) or one (in cache), against packing each cache and MatMul
// (what gocpu ran before); GB/s is of B's bytes:
// go test -run '^$' -bench InPlaceB ./internal/gemm
func BenchmarkInPlaceB(b *testing.B) {
	const m, k, n = 4, 1056, 64
	rng := rand.New(rand.NewPCG(1, 2))
	a, c := randSlice(rng, m*k), make([]float32, m*n)
	scratch := make([]float32, PackedSize(k, n))
	for _, heads := range []int{1, (64 << 20) / (4 * k * n)} {
		caches := randSlice(rng, heads*k*n)
		for _, path := range []string{"inplace", "packed"} {
			b.Run(fmt.Sprintf("caches=%d/%s", heads, path), func(b *testing.B) {
				benchCaches(b, caches, k*n, func(v []float32) {
					if path == "inplace" {
						MatMulInPlaceB(c, n, a, k, m, v, n, k, n)
					} else {
						MatMul(c, n, a, k, m, PackBInto(scratch, v, k, n, n, false), 1)
					}
				})
			})
		}
	}
}

// benchCaches runs product on each cache of size floats in caches in
// turn (one streams from DRAM where they are many, as in a decode step),
// reporting GB/s of the caches' bytes.
func benchCaches(b *testing.B, caches []float32, size int, product func(cache []float32)) {
	heads := len(caches) / size
	i := 0
	for b.Loop() {
		product(caches[(i%heads)*size : (i%heads+1)*size])
		i++
	}
	b.ReportMetric(float64(4*size)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}
