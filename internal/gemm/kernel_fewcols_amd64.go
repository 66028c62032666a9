package gemm

// The few-column kernel of kernel_fewcols_amd64.s (see fewColsKernel).

//go:noescape
func fewColsT16AVX512(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, blocks, cols int)

func init() { avx512Kernel.fewCols = fewColsT16AVX512 }
