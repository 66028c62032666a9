package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// problem is one multiplication with strides and its inputs.
type problem struct {
	m, n, k       int
	lda, ldb, ldc int
	transB        bool
	a, b          []float32
	name          string
	threads       int
}

func newProblem(rng *rand.Rand, m, n, k, pad int, transB bool, threads int) *problem {
	p := &problem{m: m, n: n, k: k, lda: k + pad, ldc: n + pad, transB: transB, threads: threads}
	rows, cols := k, n
	if transB {
		rows, cols = n, k
	}
	p.ldb = cols + pad
	p.a = randSlice(rng, max(0, (m-1)*p.lda+k))
	p.b = randSlice(rng, max(0, (rows-1)*p.ldb+cols))
	p.name = fmt.Sprintf("m%d_n%d_k%d_pad%d_t%v_th%d", m, n, k, pad, transB, threads)
	return p
}

// randSlice holds values of mixed signs and magnitudes (and a few zeros),
// so that rounding differences would show.
func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		switch rng.IntN(16) {
		case 0:
			s[i] = 0
		case 1:
			s[i] = float32(math.Ldexp(rng.NormFloat64(), rng.IntN(40)-20))
		default:
			s[i] = float32(rng.NormFloat64())
		}
	}
	return s
}

// want is the Go reference, with NaN in the gaps of the strided output.
func (p *problem) want() []float32 {
	c := nanSlice(p.m * p.ldc)
	reference(c, p.ldc, p.a, p.lda, p.m, p.b, p.k, p.n, p.ldb, p.transB)
	return c
}

func (p *problem) run(kn *kernel) []float32 {
	c := nanSlice(p.m * p.ldc)
	matMul(c, p.ldc, p.a, p.lda, p.m, packB(kn, p.b, p.k, p.n, p.ldb, p.transB), p.threads)
	return c
}

func nanSlice(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(math.NaN())
	}
	return s
}

// sameBits reports the first element where got and want differ in bits.
func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: element %d = %g (%#x), want %g (%#x)", what, i,
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// shapes covers full and edge tiles of every kernel, k = 1, odd k, K
// blocks with a remainder, transposed B and padded strides.
func shapes(rng *rand.Rand) []*problem {
	var ps []*problem
	for m := 1; m <= 20; m++ {
		ps = append(ps, newProblem(rng, m, 37, 1+rng.IntN(40), m%3, m%2 == 0, 1))
	}
	for _, s := range [][3]int{{7, 16, 1}, {6, 32, 3}, {13, 33, 257}, {9, 65, 513}, {17, 100, 300}, {3, 5, 4864}, {25, 47, 600}} {
		for _, tr := range []bool{false, true} {
			ps = append(ps, newProblem(rng, s[0], s[1], s[2], 3, tr, 1))
		}
	}
	ps = append(ps, newProblem(rng, 70, 90, 520, 1, false, 3), newProblem(rng, 5, 300, 700, 0, true, 2))
	return ps
}

// TestKernelsMatchReference: every kernel this CPU runs, with its own
// cache blocking and with tiny blocks (many K blocks continued through C,
// many row blocks and column groups), gives the Go reference's bits on
// every shape, and leaves c's stride gaps untouched.
func TestKernelsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ps := shapes(rng)
	var kernels []*kernel
	for _, kn := range available() {
		small := *kn
		small.name += "/small-blocks"
		small.kc, small.mc, small.nc = 7, 2*kn.mr, 3*kn.nr
		kernels = append(kernels, kn, &small)
	}
	for _, p := range ps {
		want := p.want()
		for _, kn := range kernels {
			sameBits(t, kn.name+"/"+p.name, p.run(kn), want)
		}
	}
}

// TestRowIndependence: a row's result does not depend on m, the row's
// position, the other rows or threads.
func TestRowIndependence(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const m, n, k = 40, 70, 300
	a, b := randSlice(rng, m*k), randSlice(rng, k*n)
	pb := PackB(b, k, n, n, false)
	full := make([]float32, m*n)
	MatMul(full, n, a, k, m, pb, 1)
	for _, th := range []int{2, 3, 8} {
		c := make([]float32, m*n)
		MatMul(c, n, a, k, m, pb, th)
		sameBits(t, fmt.Sprintf("threads %d", th), c, full)
	}
	for _, r := range [][2]int{{0, 1}, {5, 6}, {3, 10}, {17, 40}, {39, 40}} {
		c := make([]float32, (r[1]-r[0])*n)
		MatMul(c, n, a[r[0]*k:], k, r[1]-r[0], pb, 2)
		sameBits(t, fmt.Sprintf("rows %v", r), c, full[r[0]*n:r[1]*n])
	}
}

// TestAgainstFloat64: a sanity bound against float64 sums.
func TestAgainstFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const m, n, k = 9, 50, 2000
	a, b := randSlice(rng, m*k), randSlice(rng, n*k)
	c := make([]float32, m*n)
	MatMul(c, n, a, k, m, PackB(b, k, n, k, true), 2)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, abs float64
			for p := 0; p < k; p++ {
				x := float64(a[i*k+p]) * float64(b[j*k+p])
				s, abs = s+x, abs+math.Abs(x)
			}
			if d := math.Abs(float64(c[i*n+j]) - s); d > 1e-5*abs {
				t.Fatalf("c[%d,%d] = %g, float64 %g (|terms| %g)", i, j, c[i*n+j], s, abs)
			}
		}
	}
}

// TestConcurrent: MatMul is reentrant (run under -race).
func TestConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const m, n, k = 8, 64, 128
	b := randSlice(rng, k*n)
	pb := PackB(b, k, n, n, false)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		a := randSlice(rng, m*k)
		want := make([]float32, m*n)
		reference(want, n, a, k, m, b, k, n, n, false)
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := make([]float32, m*n)
			MatMul(c, n, a, k, m, pb, 1+g%3)
			for i := range want {
				if c[i] != want[i] {
					t.Errorf("goroutine %d: element %d differs", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// genericKernel is a test micro-kernel of any tile shape, built on fma32.
func genericKernel(mr, nr int) *kernel {
	run := func(k int, a, b, c []float32, ldc int, load bool, _ hint) {
		for r := 0; r < mr; r++ {
			for j := 0; j < nr; j++ {
				var acc float32
				if load {
					acc = c[r*ldc+j]
				}
				for p := 0; p < k; p++ {
					acc = fma32(a[p*mr+r], b[p*nr+j], acc)
				}
				c[r*ldc+j] = acc
			}
		}
	}
	return &kernel{name: fmt.Sprintf("generic%dx%d", mr, nr), mr: mr, nr: nr, kc: 50, mc: 3 * mr, nc: 2 * nr, run: run}
}

// TestTileShapes: the blocking, packing and edge code is right for the
// AVX-512 kernel's 8×32 tiles (not runnable on every machine) and others.
func TestTileShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, kn := range []*kernel{genericKernel(8, 32), genericKernel(1, 1), genericKernel(5, 3)} {
		for _, p := range []*problem{
			newProblem(rng, 19, 70, 123, 2, false, 1), newProblem(rng, 8, 32, 50, 0, true, 1),
			newProblem(rng, 3, 33, 101, 1, true, 3), newProblem(rng, 40, 65, 64, 0, false, 2),
		} {
			sameBits(t, kn.name+"/"+p.name, p.run(kn), p.want())
		}
	}
}

// TestPackBInto: packing into reused, dirty storage gives PackB's product
// bit for bit (the last panel's padding is cleared), both layouts.
func TestPackBInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const m, k = 7, 33
	for _, n := range []int{5, 16, 37} {
		for _, transB := range []bool{false, true} {
			ldb := n
			if transB {
				ldb = k
			}
			a, b := randSlice(rng, m*k), randSlice(rng, k*n)
			want := make([]float32, m*n)
			MatMul(want, n, a, k, m, PackB(b, k, n, ldb, transB), 1)
			dst := nanSlice(PackedSize(k, n) + 3)
			got := make([]float32, m*n)
			MatMul(got, n, a, k, m, PackBInto(dst, b, k, n, ldb, transB), 2)
			sameBits(t, fmt.Sprintf("n %d transB %v", n, transB), got, want)
		}
	}
}

// TestPackLayouts: a right-hand side packed from [N, K] (transB) has the
// layout of its explicit transpose packed from [K, N], bit for bit,
// whatever the thread count, for panel counts and sizes around NR and the
// split between threads, with row strides wider than the rows.
func TestPackLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	nr := defaultKernel().nr
	for _, c := range []struct{ k, n int }{{1, 1}, {7, nr - 1}, {33, nr}, {65, 3*nr + 5}, {300, 1100}, {896, 257}, {1024, 999}} {
		ldT, ldR := c.k+3, c.n+2
		bt := randSlice(rng, c.n*ldT)  // [N, K], stride ldT
		br := make([]float32, c.k*ldR) // its transpose [K, N], stride ldR
		for j := range c.n {
			for kk := range c.k {
				br[kk*ldR+j] = bt[j*ldT+kk]
			}
		}
		want := PackB(br, c.k, c.n, ldR, false).data
		for _, threads := range []int{1, 2, 3, 8} {
			for _, transB := range []bool{false, true} {
				dst := nanSlice(PackedSize(c.k, c.n))
				var got *PackedB
				if transB {
					got = PackBIntoThreads(dst, bt, c.k, c.n, ldT, true, threads)
				} else {
					got = PackBIntoThreads(dst, br, c.k, c.n, ldR, false, threads)
				}
				sameBits(t, fmt.Sprintf("k %d n %d threads %d transB %v", c.k, c.n, threads, transB), got.data, want)
			}
		}
	}
}

// TestPackA: packA's panels hold a's rows [i0, i1) × columns [p0, p0+kb)
// as [panel][kb][mr], rows past i1 zero — for MR 8 (its unrolled path,
// the AVX-512 kernel's) and others, whole and partial last panels.
func TestPackA(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	const lda, rows = 37, 30
	a := randSlice(rng, rows*lda)
	for _, mr := range []int{4, 6, 8} {
		for _, c := range [][4]int{{0, 16, 0, 37}, {3, 27, 5, 20}, {8, 30, 1, 1}, {0, 5, 30, 7}} {
			i0, i1, p0, kb := c[0], c[1], c[2], c[3]
			panels := (i1 - i0 + mr - 1) / mr
			dst := randSlice(rng, panels*mr*kb) // stale values must be overwritten
			packA(dst, a, lda, i0, i1, p0, kb, mr)
			for p := 0; p < panels; p++ {
				for k := 0; k < kb; k++ {
					for r := 0; r < mr; r++ {
						want := float32(0)
						if i := i0 + p*mr + r; i < i1 {
							want = a[i*lda+p0+k]
						}
						if got := dst[p*mr*kb+k*mr+r]; got != want {
							t.Fatalf("mr %d rows [%d, %d) cols %d+%d: panel %d k %d row %d = %g, want %g", mr, i0, i1, p0, kb, p, k, r, got, want)
						}
					}
				}
			}
		}
	}
}
