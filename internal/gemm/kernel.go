package gemm

import (
	"math/rand/v2"
	"os"
	"sync"
)

// microKernel computes one MR×NR tile of C from a packed A micro-panel
// a ([k][MR], row index fastest) and a packed B micro-panel b ([k][NR],
// column index fastest): c[r*ldc+j] = chain over k of fma(a[k][r], b[k][j], ·),
// starting from +0, or from c's current value when load is set (the chain
// continued across K blocks). pf names memory the next calls will touch.
type microKernel func(k int, a, b, c []float32, ldc int, load bool, pf hint)

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
}

// envKernel names the environment variable that forces a kernel.
const envKernel = "GOEVAL_GEMM_KERNEL"

var (
	chooseOnce sync.Once
	chosen     *kernel
)

// defaultKernel is the kernel PackB lays B out for: the first of the CPU's
// kernels (widest first, or the one GOEVAL_GEMM_KERNEL names) that passes
// a bit-exact self-check against the Go reference.
func defaultKernel() *kernel {
	chooseOnce.Do(func() { chosen = choose(available(), os.Getenv(envKernel)) })
	return chosen
}

// Kernel names the micro-kernel in use ("avx512", "avx2+fma", "go").
func Kernel() string { return defaultKernel().name }

// choose returns the forced kernel (by name, if available and correct),
// else the first of cands that passes selfCheck; the Go kernel last.
func choose(cands []*kernel, force string) *kernel {
	if force == "avx2" {
		force = "avx2+fma"
	}
	for i, k := range cands {
		if k.name == force {
			cands = append([]*kernel{k}, append(cands[:i:i], cands[i+1:]...)...)
			break
		}
	}
	for _, k := range cands {
		if k == goKernel || selfCheck(k) {
			return k
		}
	}
	return goKernel
}

// selfCheck multiplies a small problem that covers full and edge tiles and
// a continued K block with k and with the Go reference, and reports whether
// every bit agrees.
func selfCheck(k *kernel) bool {
	m, n, kk := 2*k.mr+3, 2*k.nr+5, k.kc+37
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float32, m*kk)
	b := make([]float32, kk*n)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	want := make([]float32, m*n)
	reference(want, n, a, kk, m, b, kk, n, n, false)
	got := make([]float32, m*n)
	matMul(got, n, a, kk, m, packB(k, b, kk, n, n, false), 1)
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
