package gemm

import "golang.org/x/sys/cpu"

// The assembly packed 4-bit kernels of kernel_q4_amd64.s (see q4Cols)
// and kernel_q4dot_amd64.s (see q4DotKernels).

//go:noescape
func q4Cols1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4Cols4AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4Cols1AVX2(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4Cols4AVX2(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

func init() {
	avx512Kernel.q4 = &q4Kernels{step: 64, order: q4Order512(), cvt: cpu.X86.HasAVX512BF16, one: asmQ4Pairs(q4Pairs1AVX512, q4Cols1AVX512), four: asmQ4(q4Cols4AVX512, 64)}
	if cpu.X86.HasAVX512BF16 {
		avx512Kernel.q4.dot = &q4DotKernels{one: asmQ4(q4Dot1AVX512, q4DotStep), four: asmQ4(q4Dot4AVX512, q4DotStep)}
	}
	avx512Kernel.q4.many = &q4ManyKernels{rows: 4, cols: 6, order: avx512Kernel.q4.order, tile: q4Many4x6AVX512, deq: q4DeqAVX512}
	avx2Kernel.q4 = &q4Kernels{step: 32, order: q4OrderAVX2(), swapQuads: true, one: asmQ4(q4Cols1AVX2, 32), four: asmQ4(q4Cols4AVX2, 32)}
	avx2Kernel.q4.many = &q4ManyKernels{rows: 3, cols: 4, order: q4ManyOrder(avx2Kernel.q4.order), tile: q4Many3x4AVX2, deq: q4DeqAVX2}
}

//go:noescape
func q4DeqAVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4DeqAVX2(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

//go:noescape
func q4Many4x6AVX512(k int, a, w, c *float32, ldc int, tmp *float32, pass int)

//go:noescape
func q4Many3x4AVX2(k int, a, w, c *float32, ldc int, tmp *float32, pass int)

// asmQ4 wraps an assembly kernel whose steps read step values as a
// q4ColsOf; the caller (q4Group) has bounded the slices.
func asmQ4[T float32 | uint16](f q4Frame[T], step int) q4ColsOf[T] {
	return func(g *q4Group, n0, n1 int, a []T, c []float32, ldc int) {
		callQ4(f, step, g, n0, n1-n0, &a[0], &c[0], ldc)
	}
}

//go:noescape
func q4Pairs1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

// asmQ4Pairs is asmQ4 through pairs (a kernel for an even number of
// columns) for all but a last odd column, which goes through one, where
// K is at least q4PairsMinK; else one for every column.
func asmQ4Pairs(pairs, one q4Frame[float32]) q4Cols {
	p, o := asmQ4(pairs, 64), asmQ4(one, 64)
	return func(g *q4Group, n0, n1 int, a, c []float32, ldc int) {
		if g.b.K < q4PairsMinK {
			o(g, n0, n1, a, c, ldc)
			return
		}
		even := n0 + (n1-n0)&^1
		if even > n0 {
			p(g, n0, even, a, c, ldc)
		}
		if even < n1 {
			o(g, even, n1, a, c[even-n0:], ldc)
		}
	}
}

//go:noescape
func q4Dot1AVX512(nblk, steps int, codes *byte, scale, offset, table *float32, a *uint16, c *float32, ldc, ncols, round int)

//go:noescape
func q4Dot4AVX512(nblk, steps int, codes *byte, scale, offset, table *float32, a *uint16, c *float32, ldc, ncols, round int)
