package gemm

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/goeval/goeval/internal/env"
)

// microKernel computes one MR×NR tile of C from a packed A micro-panel
// a ([k][MR], row index fastest) and a packed B micro-panel b ([k][NR],
// column index fastest): c[r*ldc+j] = chain over k of fma(a[k][r], b[k][j], ·),
// starting from +0, or from c's current value when load is set (the chain
// continued across K blocks). pf names memory the next calls will touch.
type microKernel func(k int, a, b, c []float32, ldc int, load bool, pf hint)

// directKernel is a microKernel that reads A in place instead of from a
// packed micro-panel: row r of the MR×k block at a[r*lda:], k contiguous.
// It must give the packed kernel's bits (the same chains).
type directKernel func(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint)

// hint is a prefetch hint for a micro-kernel; nil fields prefetch nothing.
type hint struct {
	c *float32 // the C tile of the next call
	b *float32 // the next B micro-panel, [k][NR]
}

// kernel is a micro-kernel with its tile shape and cache blocking.
type kernel struct {
	name   string // "avx512", "avx2+fma" or "go"
	mr, nr int    // tile rows (A panel width) and columns (B panel width)
	kc     int    // K block (at most): a B micro-panel kc×nr stays in L2
	mc     int    // rows of A packed per block (a multiple of mr)
	nc     int    // columns of B per block (a multiple of nr): kc×nc stays in L3
	run    microKernel

	// direct, if not nil, is run's twin on A in place, used for full MR-row
	// tiles when B has at most maxDirect panels (each A element then
	// serves so few tiles that packing it costs more than it saves).
	// narrow, if not nil, is direct for tiles of at most NR/2 columns: it
	// computes (reads, writes) only the first NR/2 columns of C; narrow2,
	// if not nil, is narrow for 2·MR rows, used when B is one such panel.
	direct, narrow, narrow2 directKernel
	maxDirect               int

	// bf16, if not nil, are the kernel's twins for a bfloat16 B
	// (bf16_kernel.go).
	bf16 *bf16Kernels

	// q4, if not nil, are the kernel's packed 4-bit decode kernels
	// (q4_kernel.go).
	q4 *q4Kernels

	// i8, if not nil, is the kernel's screening product (screen.go).
	i8 *i8Kernels

	// rowsB is the kernel's few-row product with B in place (rowsb.go).
	rowsB *rowsBKernel

	// fewCols, if not nil, is the kernel's few-column product (fewcols.go).
	fewCols fewColsKernel
}

var (
	chooseOnce sync.Once
	chosen     *kernel
)

// defaultKernel is the kernel PackB lays B out for: the first of the CPU's
// kernels (widest first, or the one GOEVAL_GEMM_KERNEL names) that passes
// a bit-exact self-check against the Go reference.
func defaultKernel() *kernel {
	chooseOnce.Do(func() { chosen = choose(available(), env.GemmKernel.Get()) })
	return chosen
}

// Kernel names the micro-kernel in use ("avx512", "avx2+fma", "go").
func Kernel() string { return defaultKernel().name }

// choose returns the forced kernel (by name, if available and correct),
// else the first of cands that passes selfCheck; the Go kernel last.
func choose(cands []*kernel, force string) *kernel {
	for _, k := range forcedFirst(cands, force) {
		if k == goKernel {
			return k
		}
		if !selfCheck(k) {
			continue
		}
		if k.direct != nil && !selfCheckDirect(k) {
			packOnly := *k // the direct kernel is wrong: always pack A
			packOnly.direct, packOnly.narrow, packOnly.narrow2 = nil, nil, nil
			return &packOnly
		}
		return k
	}
	return goKernel
}

// forcedFirst is cands with the kernel force names (avx2 for avx2+fma)
// moved first, if it is among them.
func forcedFirst(cands []*kernel, force string) []*kernel {
	if force == "avx2" {
		force = "avx2+fma"
	}
	for i, k := range cands {
		if k.name == force {
			return append([]*kernel{k}, append(cands[:i:i], cands[i+1:]...)...)
		}
	}
	return cands
}

// forceDirect is a copy of k that reads A in place whatever the number of
// B panels (on), or that always packs A (!on).
func forceDirect(k *kernel, on bool) *kernel {
	f := *k
	f.maxDirect = 0
	if on {
		f.maxDirect = math.MaxInt
	}
	return &f
}

// selfCheck multiplies a small problem that covers full and edge tiles and
// a continued K block with k and with the Go reference, and reports whether
// every bit agrees. Its three B panels take the packed path.
func selfCheck(k *kernel) bool { return selfCheckShape(k, 2*k.mr+3, 2*k.nr+5) }

// selfCheckDirect is selfCheck for k's direct kernels, forced: full,
// narrow and edge panels, and B of one narrow panel (narrow2).
func selfCheckDirect(k *kernel) bool {
	f := forceDirect(k, true)
	return selfCheckShape(f, 2*k.mr+3, 2*k.nr+5) && selfCheckShape(f, 3*k.mr+1, k.nr/2-3)
}

// selfCheckShape is selfCheck on m rows × n columns, A at a padded stride.
func selfCheckShape(k *kernel, m, n int) bool {
	kk := k.kc + 37
	lda := kk + 3
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float32, m*lda)
	b := make([]float32, kk*n)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	want := make([]float32, m*n)
	reference(want, n, a, lda, m, b, kk, n, n, false)
	got := make([]float32, m*n)
	matMul(got, n, a, lda, m, packB(k, b, kk, n, n, false), 1)
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// reference is the definition: c[i,j] = fma chain over ascending k from +0,
// with B as PackB takes it (b[k*ldb+j], or b[j*ldb+k] when transB).
func reference(c []float32, ldc int, a []float32, lda, m int, b []float32, k, n, ldb int, transB bool) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var acc float32
			for p := 0; p < k; p++ {
				var bv float32
				if transB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				acc = fma32(a[i*lda+p], bv, acc)
			}
			c[i*ldc+j] = acc
		}
	}
}
