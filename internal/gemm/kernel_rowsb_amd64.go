package gemm

// The rowsB kernels of kernel_rowsb_amd64.s (see rowsBKernel).

//go:noescape
func rowsB4x16AVX512(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

//go:noescape
func rowsB4x64AVX512(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

//go:noescape
func rowsB4x8AVX2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

func init() {
	avx512Kernel.rowsB = &rowsBKernel{cols: 16, run: asmRowsB(rowsB4x16AVX512, 16),
		wide: asmRowsB(rowsB4x64AVX512, 64), wideCols: 64}
	avx2Kernel.rowsB = &rowsBKernel{cols: 8, run: asmRowsB(rowsB4x8AVX2, 8)}
}

// asmRowsB wraps an assembly rowsB kernel of cols columns, bounding its
// slices first.
func asmRowsB(f func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int), cols int) func(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	return func(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
		_, _, _ = a[(rowsBRows-1)*lda+k-1], b[(k-1)*ldb+cols-1], c[(rowsBRows-1)*ldc+cols-1]
		f(k, &a[0], lda, &b[0], ldb, &c[0], ldc)
	}
}
