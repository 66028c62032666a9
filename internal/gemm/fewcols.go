package gemm

import "sync"

// Products with few columns and a transposed right-hand side read row by
// row, A read in place (decode attention's scores: a key cache's rows
// times a query group, [T, d] · [g, d]ᵀ with g of 1 to 8). MatMul would
// compute whole NR-column tiles (32 on AVX-512) of which g fill a few, and
// pack B per call. Here a kernel takes 16 rows of A at a time, transposes
// each 16 × 16 block in registers so that one register holds a k's 16
// rows, and runs each output's chain over k in order from +0: MatMul's
// bits.

// fewColsMax is the most columns MatMulFewCols takes.
const fewColsMax = 8

// fewColsKernel computes blocks·16 rows of c = a·bᵀ for b's first cols ≤ 4
// rows (it reads 4), k a multiple of 16 (kernel_fewcols_amd64.s).
type fewColsKernel func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, blocks, cols int)

// CanMatMulFewCols reports whether MatMulFewCols takes k and n here.
func CanMatMulFewCols(k, n int) bool {
	return defaultKernel().fewCols != nil && k > 0 && k%16 == 0 && n > 0 && n <= fewColsMax
}

// MatMulFewCols sets c [m, n] (row stride ldc) = a [m, k] (lda) · bᵀ for
// b [n, k] (row stride ldb), on the calling goroutine: each output is
// MatMul's chain, so the bits are MatMul's. It panics unless
// CanMatMulFewCols(k, n).
func MatMulFewCols(c []float32, ldc int, a []float32, lda, m int, b []float32, ldb, k, n int) {
	if !CanMatMulFewCols(k, n) {
		panic("gemm: MatMulFewCols: no kernel for this shape (CanMatMulFewCols)")
	}
	checkMatrix("MatMulFewCols: a", a, m, k, lda)
	checkMatrix("MatMulFewCols: b", b, n, k, ldb)
	checkMatrix("MatMulFewCols: c", c, m, n, ldc)
	f := defaultKernel().fewCols
	p := getPooled[float32](&fewColsScratch, 4*k+16*k+16*4)
	defer fewColsScratch.Put(p)
	qs, ta, tc := (*p)[:4*k], (*p)[4*k:20*k], (*p)[20*k:]
	full := m / 16 * 16
	if full < m { // the last rows, padded with zero rows, through scratch
		padRows(ta, a, lda, full, m, k)
	}
	for j0 := 0; j0 < n; j0 += 4 {
		g := min(4, n-j0)
		q, ldq := b[j0*ldb:], ldb
		if g < 4 { // the kernel reads four rows of b
			padRows(qs, b, ldb, j0, j0+g, k)
			q, ldq = qs, k
		}
		if full > 0 {
			_ = c[(full-1)*ldc+j0+g-1]
			f(k, &a[0], lda, &q[0], ldq, &c[j0], ldc, full/16, g)
		}
		if full == m {
			continue
		}
		f(k, &ta[0], k, &q[0], ldq, &tc[0], 4, 1, g)
		for r := full; r < m; r++ {
			copy(c[r*ldc+j0:r*ldc+j0+g], tc[(r-full)*4:])
		}
	}
}

// fewColsScratch pools MatMulFewCols' padded operands.
var fewColsScratch sync.Pool
