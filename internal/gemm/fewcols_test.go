package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMatMulFewCols: the few-column product has MatMul's bits for 1 to 8
// columns (one or two passes of four, padded), whole and partial blocks
// of 16 rows, k of one and several blocks of 16, strided a, b and c
// (whose gaps it leaves alone). Where the CPU has no kernel it must say
// so, so that callers take MatMul.
func TestMatMulFewCols(t *testing.T) {
	if defaultKernel().fewCols == nil {
		if CanMatMulFewCols(64, 4) {
			t.Fatal("CanMatMulFewCols without a kernel")
		}
		return
	}
	rng := rand.New(rand.NewPCG(62, 63))
	for _, s := range []struct{ m, k, n int }{{16, 16, 4}, {1, 64, 1}, {33, 64, 4}, {100, 128, 7}, {48, 32, 8}, {5, 80, 2}, {272, 64, 3}} {
		name := fmt.Sprintf("m%d_k%d_n%d", s.m, s.k, s.n)
		lda, ldb, ldc := s.k+5, s.k+3, s.n+2
		a, b := randSlice(rng, s.m*lda), randSlice(rng, s.n*ldb)
		c := nanSlice(s.m * ldc)
		MatMulFewCols(c, ldc, a, lda, s.m, b, ldb, s.k, s.n)
		want := make([]float32, s.m*s.n)
		MatMul(want, s.n, a, lda, s.m, PackB(b, s.k, s.n, ldb, true), 1)
		if msg := stridedMismatch(c, ldc, want, s.m, s.n); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// BenchmarkFewCols is decode attention's scores on one thread: a 1056 × 64
// key cache read in place times 4 queries, per head, cycling through 64
// MiB of caches (from DRAM, as in a decode step) or one (in cache),
// against MatMul with the queries packed; GB/s is of A's bytes:
// go test -run '^$' -bench FewCols ./internal/gemm
func BenchmarkFewCols(b *testing.B) {
	const m, k, n = 1056, 64, 4
	rng := rand.New(rand.NewPCG(3, 4))
	q, c := randSlice(rng, n*k), make([]float32, m*n)
	for _, heads := range []int{1, (64 << 20) / (4 * m * k)} {
		caches := randSlice(rng, heads*m*k)
		for _, path := range []string{"fewcols", "matmul"} {
			if path == "fewcols" && !CanMatMulFewCols(k, n) {
				continue
			}
			b.Run(fmt.Sprintf("caches=%d/%s", heads, path), func(b *testing.B) {
				benchCaches(b, caches, m*k, func(a []float32) {
					if path == "fewcols" {
						MatMulFewCols(c, n, a, k, m, q, k, k, n)
					} else {
						MatMul(c, n, a, k, m, PackB(q, k, n, k, true), 1)
					}
				})
			})
		}
	}
}
