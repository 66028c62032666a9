package gemm

import "golang.org/x/sys/cpu"

// The assembly bf16 micro-kernels of kernel_bf16_amd64.s (see
// microKernelBF16; load is 0 or 1). The Go wrappers bound the slices.

//go:noescape
func kern8x32BF16AVX512(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

//go:noescape
func kern4x32BF16AVX512(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

//go:noescape
func kern1x32BF16AVX512(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

//go:noescape
func kern6x16BF16AVX2(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

//go:noescape
func kern3x16BF16AVX2(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

//go:noescape
func kern1x16BF16AVX2(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

//go:noescape
func kern8x32DotBF16AVX512(k int, a *uint16, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

func init() {
	avx512Kernel.bf16 = &bf16Kernels{full: runBF16(kern8x32BF16AVX512, 8, 8, 32),
		few: runBF16(kern4x32BF16AVX512, 4, 8, 32), fewRows: 4, one: runBF16(kern1x32BF16AVX512, 1, 8, 32)}
	if cpu.X86.HasAVX512BF16 {
		avx512Kernel.bf16.dot = runDot
	}
	avx2Kernel.bf16 = &bf16Kernels{full: runBF16(kern6x16BF16AVX2, 6, 6, 16),
		few: runBF16(kern3x16BF16AVX2, 3, 6, 16), fewRows: 3, one: runBF16(kern1x16BF16AVX2, 1, 6, 16)}
}

// asmBF16 is the signature of the assembly bf16 kernels.
type asmBF16 func(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

// runBF16 wraps an assembly kernel computing rows rows of an mr×nr tile:
// the slices are bounded here (k even, positive).
func runBF16(f asmBF16, rows, mr, nr int) microKernelBF16 {
	return func(k int, a []float32, b []uint16, c []float32, ldc int, load bool, pf hintBF16) {
		if k <= 0 || k%2 != 0 {
			panic("gemm: bf16 kernel: k must be even and positive")
		}
		_, _, _ = a[k*mr-1], b[k*nr-1], c[(rows-1)*ldc+nr-1]
		pc, pb := orPtr(pf.c, &c[0]), pf.b
		if pb == nil {
			pb = &b[0]
		}
		f(k, &a[0], &b[0], &c[0], ldc, b2i(load), pc, pb)
	}
}

// runDot wraps the VDPBF16PS kernel (8×32 tile, A in bf16 pairs).
func runDot(k int, a, b []uint16, c []float32, ldc int, load bool, pf hintBF16) {
	if k <= 0 || k%2 != 0 {
		panic("gemm: bf16 dot kernel: k must be even and positive")
	}
	_, _, _ = a[k*8-1], b[k*32-1], c[7*ldc+31]
	pc, pb := orPtr(pf.c, &c[0]), pf.b
	if pb == nil {
		pb = &b[0]
	}
	kern8x32DotBF16AVX512(k, &a[0], &b[0], &c[0], ldc, b2i(load), pc, pb)
}
