package gemm

// The assembly packed 4-bit kernels of kernel_q4_amd64.s (see q4Cols).

//go:noescape
func q4Cols1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4Cols4AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4Cols1AVX2(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4Cols4AVX2(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

func init() {
	avx512Kernel.q4 = &q4Kernels{step: 64, order: q4StepOrder(8), one: asmQ4(q4Cols1AVX512), four: asmQ4(q4Cols4AVX512)}
	avx2Kernel.q4 = &q4Kernels{step: 32, order: q4StepOrder(4), one: asmQ4(q4Cols1AVX2), four: asmQ4(q4Cols4AVX2)}
}

// asmQ4 wraps an assembly kernel as a q4Cols; the caller (q4Group) has
// bounded the slices.
func asmQ4(f func(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)) q4Cols {
	return func(g *q4Group, n0, n1 int, a, c []float32, ldc int) {
		b := g.b
		bpr := b.K / b.Block
		var off *float32
		if b.Offset != nil {
			off = &b.Offset[n0*bpr]
		}
		f(bpr, b.Block/g.kn.step, &b.Codes[n0*b.K/2], &b.Scale[n0*bpr], off, &b.Table[0],
			&a[0], &c[0], ldc, n1-n0, b2i(b.RoundBF16))
	}
}
