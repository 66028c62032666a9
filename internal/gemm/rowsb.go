package gemm

import "sync"

// Products of a few rows with a right-hand side read in place (decode
// attention's probabilities times the value cache, [T, head_dim] rows of
// a larger cache): MatMul would pack B first, which for a B read once
// copies as many bytes as the product reads, and compute whole MR-row
// tiles of which the few rows fill part. Here a kernel reads B's rows
// where they lie for four rows of A at a time, vectorised over B's
// columns, each output MatMul's chain (fma in k order from +0): the same
// bits as MatMul.

// rowsBRows is the rows of A a rowsB kernel call computes.
const rowsBRows = 4

// rowsBKernel computes c[r·ldc + j] = chain over p < k of
// fma(a[r·lda + p], b[p·ldb + j], ·) from +0 for r < rowsBRows and j <
// cols (the kernel's column width).
type rowsBKernel struct {
	cols int
	run  func(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int)
	// wide, if not nil, is run for wideCols columns (a multiple of cols),
	// reading B's rows whole where they are that wide.
	wide     func(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int)
	wideCols int
}

// rows4 computes n columns (a multiple of cols) of four rows, through
// wide while whole wide blocks remain.
func (rb *rowsBKernel) rows4(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc, n int) {
	j := 0
	for ; rb.wide != nil && j+rb.wideCols <= n; j += rb.wideCols {
		rb.wide(k, a, lda, b[j:], ldb, c[j:], ldc)
	}
	for ; j < n; j += rb.cols {
		rb.run(k, a, lda, b[j:], ldb, c[j:], ldc)
	}
}

// CanMatMulInPlaceB reports whether MatMulInPlaceB takes n columns here: a
// whole number of the default kernel's column width.
func CanMatMulInPlaceB(n int) bool { return defaultKernel().canInPlaceB(n) }

func (kn *kernel) canInPlaceB(n int) bool {
	return kn.rowsB != nil && n > 0 && n%kn.rowsB.cols == 0
}

// MatMulInPlaceB sets c [m, n] (row stride ldc) = a [m, k] (lda) · b
// [k, n] (row stride ldb), b read in place, on the calling goroutine:
// each output is MatMul's chain, so the bits are MatMul's. It panics
// unless CanMatMulInPlaceB(n).
func MatMulInPlaceB(c []float32, ldc int, a []float32, lda, m int, b []float32, ldb, k, n int) {
	matMulInPlaceB(defaultKernel(), c, ldc, a, lda, m, b, ldb, k, n)
}

// matMulInPlaceB is MatMulInPlaceB through kn's rowsB kernel.
func matMulInPlaceB(kn *kernel, c []float32, ldc int, a []float32, lda, m int, b []float32, ldb, k, n int) {
	if !kn.canInPlaceB(n) {
		panic("gemm: MatMulInPlaceB: no kernel for this width (CanMatMulInPlaceB)")
	}
	checkMatrix("MatMulInPlaceB: a", a, m, k, lda)
	checkMatrix("MatMulInPlaceB: b", b, k, n, ldb)
	checkMatrix("MatMulInPlaceB: c", c, m, n, ldc)
	if m == 0 {
		return
	}
	if k == 0 {
		for r := range m {
			clear(c[r*ldc : r*ldc+n])
		}
		return
	}
	rb := kn.rowsB
	full := m / rowsBRows * rowsBRows
	for r := 0; r < full; r += rowsBRows {
		rb.rows4(k, a[r*lda:], lda, b, ldb, c[r*ldc:], ldc, n)
	}
	if full == m {
		return
	}
	// The last rows, padded with zero rows, through scratch.
	pa := getPooled[float32](&rowsBScratch, rowsBRows*(k+n))
	defer rowsBScratch.Put(pa)
	ta, tc := (*pa)[:rowsBRows*k], (*pa)[rowsBRows*k:]
	padRows(ta, a, lda, full, m, k)
	rb.rows4(k, ta, k, b, ldb, tc, n, n)
	for r := full; r < m; r++ {
		copy(c[r*ldc:r*ldc+n], tc[(r-full)*n:])
	}
}

// padRows sets dst to rows [r0, r1) of a (stride lda, k values each) as
// [r1−r0][k], and the rest of dst to zeros: rows padded for a kernel that
// takes a fixed number.
func padRows(dst, a []float32, lda, r0, r1, k int) {
	clear(dst)
	for r := r0; r < r1; r++ {
		copy(dst[(r-r0)*k:(r-r0+1)*k], a[r*lda:r*lda+k])
	}
}

// rowsBScratch pools MatMulInPlaceB's padded last rows.
var rowsBScratch sync.Pool

// rowsBGo is the Go rowsB kernel, goNR columns.
func rowsBGo(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	_, _ = a[(rowsBRows-1)*lda+k-1], b[(k-1)*ldb+goNR-1]
	for r := range rowsBRows {
		var acc [goNR]float32
		for p := range k {
			x, row := a[r*lda+p], b[p*ldb:p*ldb+goNR]
			for j := range acc {
				acc[j] = fma32(x, row[j], acc[j])
			}
		}
		copy(c[r*ldc:r*ldc+goNR], acc[:])
	}
}
