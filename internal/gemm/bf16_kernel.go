package gemm

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/goeval/goeval/internal/env"
)

// microKernelBF16 is microKernel with a bf16 B micro-panel b ([k/2][NR][2],
// see PackedBF16; k even): c[r*ldc+j] = chain over k of fma(a[k][r],
// widen(B[k][j]), ·), the f32 kernel's chains on the widened B. A kernel
// for fewer rows than MR reads the same [k][MR] A panel and computes (reads,
// writes) only its first rows of C.
type microKernelBF16 func(k int, a []float32, b []uint16, c []float32, ldc int, load bool, pf hintBF16)

// hintBF16 is hint for a bf16 B micro-panel.
type hintBF16 struct {
	c *float32 // the C tile of the next call
	b *uint16  // the next B micro-panel
}

// bf16Kernels are a kernel's bf16 twins (same MR, NR, blocking): full for
// MR rows, few for the first fewRows rows, one for the first row.
type bf16Kernels struct {
	full, few, one microKernelBF16
	fewRows        int
	// dot, if not nil, is the VDPBF16PS kernel for MR rows (bf16dot.go).
	dot microKernelDot
}

// forRows returns the kernel for a tile of h valid rows (of mr) and the
// rows it computes.
func (k *bf16Kernels) forRows(h, mr int) (microKernelBF16, int) {
	switch {
	case h == 1 && k.one != nil:
		return k.one, 1
	case h <= k.fewRows && k.few != nil:
		return k.few, k.fewRows
	}
	return k.full, mr
}

var (
	chooseBF16Once sync.Once
	chosenBF16     *kernel
)

// defaultKernelBF16 is the kernel whose bf16 twins PackBBF16 lays B out
// for: the first of the CPU's kernels (or the one GOEVAL_GEMM_KERNEL
// names) whose bf16 kernels pass a bit-exact self-check. It may differ
// from defaultKernel only where a bf16 kernel fails that check.
func defaultKernelBF16() *kernel {
	chooseBF16Once.Do(func() { chosenBF16 = chooseBF16(available(), env.GemmKernel.Get()) })
	return chosenBF16
}

// KernelBF16 names the kernel whose bf16 twins MatMulBF16 runs.
func KernelBF16() string { return defaultKernelBF16().name }

// chooseBF16 is choose for the bf16 kernels.
func chooseBF16(cands []*kernel, force string) *kernel {
	for _, k := range forcedFirst(cands, force) {
		if k == goKernel {
			return k
		}
		if k.bf16 == nil || !selfCheckBF16(k) {
			continue
		}
		if k.bf16.dot != nil && !selfCheckDot(k) {
			noDot, bf := *k, *k.bf16 // the dot kernel is wrong: no VDPBF16PS path
			bf.dot, noDot.bf16 = nil, &bf
			return &noDot
		}
		return k
	}
	return goKernel
}

// selfCheckBF16 multiplies small problems covering every bf16 kernel
// (one row, few rows, full and edge tiles, two K blocks) with k's bf16
// kernels and with the Go reference on the widened B, and reports whether
// every bit agrees.
func selfCheckBF16(k *kernel) bool {
	for _, m := range []int{1, max(1, k.bf16.fewRows), 2*k.mr + 3} {
		if !selfCheckBF16Shape(k, m, 2*k.nr+5) {
			return false
		}
	}
	return true
}

func selfCheckBF16Shape(k *kernel, m, n int) bool {
	kk := k.kc + 38
	lda := kk + 3
	rng := rand.New(rand.NewPCG(3, 4))
	a := make([]float32, m*lda)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	b := make([]uint16, kk*n)
	wide := make([]float32, kk*n)
	for i := range b {
		b[i] = uint16(math.Float32bits(float32(rng.NormFloat64())) >> 16)
		wide[i] = WidenBF16(b[i])
	}
	want := make([]float32, m*n)
	reference(want, n, a, lda, m, wide, kk, n, n, false)
	got := make([]float32, m*n)
	pb := packBBF16(k, b, kk, n, n, false)
	j := &jobBF16{c: got, ldc: n, a: a, lda: lda, m: m, b: pb}
	j.run(0, m, 0, (n+k.nr-1)/k.nr)
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
