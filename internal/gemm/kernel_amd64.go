package gemm

import "golang.org/x/sys/cpu"

// The assembly micro-kernels of kernel_amd64.s (see microKernel; load is
// 0 or 1). Each checks nothing: the Go wrappers below bound the slices.

//go:noescape
func kern6x16AVX2(k int, a, b, c *float32, ldc int, load int, nextC, nextB *float32)

//go:noescape
func kern6x16AVX2Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)

//go:noescape
func kern6x8AVX2Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)

//go:noescape
func kern12x8AVX2Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)

//go:noescape
func kern8x32AVX512(k int, a, b, c *float32, ldc int, load int, nextC, nextB *float32)

// The AVX-512 kernels with A in place (kernel_avx512_direct_amd64.s).

//go:noescape
func kern8x32AVX512Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)

//go:noescape
func kern8x16AVX512Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)

//go:noescape
func kern16x16AVX512Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)

var (
	avx2Kernel = &kernel{name: "avx2+fma", mr: 6, nr: 16, kc: 1024, mc: 72, nc: 2048, run: runAVX2,
		direct: runAVX2Direct, narrow: runAVX2Narrow, narrow2: runAVX2Narrow2, maxDirect: 8}
	// choose keeps avx512Kernel only if selfCheck passes. Its NC block
	// (8192 columns: a B block of kc×nc is 16 MiB, in a 32 MiB L3) covers
	// a 0.5B model's MLP width, so A is packed once per K block there.
	avx512Kernel = &kernel{name: "avx512", mr: 8, nr: 32, kc: 512, mc: 128, nc: 8192, run: runAVX512,
		direct: runAVX512Direct, narrow: runAVX512Narrow, narrow2: runAVX512Narrow2, maxDirect: 8}
)

// available lists the kernels this CPU runs, preferred first.
func available() []*kernel {
	var ks []*kernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernel)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2Kernel)
	}
	return append(ks, goKernel)
}

func runAVX2(k int, a, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[k*6-1], b[k*16-1], c[5*ldc+15]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern6x16AVX2(k, &a[0], &b[0], &c[0], ldc, b2i(load), pc, pb)
}

func runAVX2Direct(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[5*lda+k-1], b[k*16-1], c[5*ldc+15]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern6x16AVX2Direct(k, &a[0], lda, &b[0], &c[0], ldc, b2i(load), pc, pb)
}

func runAVX2Narrow(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[5*lda+k-1], b[k*16-1], c[5*ldc+7]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern6x8AVX2Direct(k, &a[0], lda, &b[0], &c[0], ldc, b2i(load), pc, pb)
}

func runAVX2Narrow2(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[11*lda+k-1], b[k*16-1], c[11*ldc+7]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern12x8AVX2Direct(k, &a[0], lda, &b[0], &c[0], ldc, b2i(load), pc, pb)
}

func runAVX512(k int, a, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[k*8-1], b[k*32-1], c[7*ldc+31]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern8x32AVX512(k, &a[0], &b[0], &c[0], ldc, b2i(load), pc, pb)
}

func runAVX512Direct(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[7*lda+k-1], b[k*32-1], c[7*ldc+31]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern8x32AVX512Direct(k, &a[0], lda, &b[0], &c[0], ldc, b2i(load), pc, pb)
}

func runAVX512Narrow(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[7*lda+k-1], b[k*32-1], c[7*ldc+15]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern8x16AVX512Direct(k, &a[0], lda, &b[0], &c[0], ldc, b2i(load), pc, pb)
}

func runAVX512Narrow2(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
	_, _, _ = a[15*lda+k-1], b[k*32-1], c[15*ldc+15]
	pc, pb := orPtr(pf.c, &c[0]), orPtr(pf.b, &b[0])
	kern16x16AVX512Direct(k, &a[0], lda, &b[0], &c[0], ldc, b2i(load), pc, pb)
}

// orPtr is p, or q where p is nil.
func orPtr(p, q *float32) *float32 {
	if p == nil {
		return q
	}
	return p
}

// packA8AVX2 packs 8 rows of A (row r at a + r·lda) into panel, [k][8],
// for blocks·8 values of k (pack_amd64.s).
//
//go:noescape
func packA8AVX2(panel, a *float32, lda, blocks int)

// hasPackA8: packA8 may use packA8AVX2.
var hasPackA8 = cpu.X86.HasAVX2
