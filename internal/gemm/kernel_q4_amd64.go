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
	avx512Kernel.q4 = &q4Kernels{step: 64, order: q4StepOrder(8), one: asmQ4Pairs(q4Pairs1AVX512, q4Cols1AVX512), four: asmQ4(q4Cols4AVX512)}
	if cpu.X86.HasAVX512BF16 {
		avx512Kernel.q4.dot = &q4DotKernels{one: asmQ4Dot(q4Dot1AVX512), four: asmQ4Dot(q4Dot4AVX512)}
	}
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

//go:noescape
func q4Pairs1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)

// asmQ4Pairs is asmQ4 through pairs (a kernel for an even number of
// columns) for all but a last odd column, which goes through one, where
// K is at least q4PairsMinK; else one for every column.
func asmQ4Pairs(pairs, one func(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)) q4Cols {
	p, o := asmQ4(pairs), asmQ4(one)
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

// asmQ4DotFunc is the frame of the dot kernels (kernel_q4dot_amd64.s).
type asmQ4DotFunc func(nblk, steps int, codes *byte, scale, offset, table *float32, a *uint16, c *float32, ldc, ncols, round int)

//go:noescape
func q4Dot1AVX512(nblk, steps int, codes *byte, scale, offset, table *float32, a *uint16, c *float32, ldc, ncols, round int)

//go:noescape
func q4Dot4AVX512(nblk, steps int, codes *byte, scale, offset, table *float32, a *uint16, c *float32, ldc, ncols, round int)

// asmQ4Dot wraps a dot kernel as a q4ColsOf[uint16] (slices bounded by
// the caller).
func asmQ4Dot(f asmQ4DotFunc) q4ColsOf[uint16] {
	return func(g *q4Group, n0, n1 int, a []uint16, c []float32, ldc int) {
		b := g.b
		bpr := b.K / b.Block
		var off *float32
		if b.Offset != nil {
			off = &b.Offset[n0*bpr]
		}
		f(bpr, b.Block/q4DotStep, &b.Codes[n0*b.K/2], &b.Scale[n0*bpr], off, &b.Table[0],
			&a[0], &c[0], ldc, n1-n0, 1)
	}
}
