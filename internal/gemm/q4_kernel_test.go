package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// q4Tables are the code books of every 4-bit kind: nf4 and fp4 as
// bitsandbytes has them (no offset), GPTQ/AWQ int4 as 0..15 (with the
// offset −zero·scale).
var q4Tables = map[string][16]float32{
	"nf4": {-1, -0.6961928, -0.52507305, -0.3949175, -0.28444138, -0.18477343, -0.091050036, 0,
		0.0795803, 0.1609302, 0.2461123, 0.33791524, 0.44070983, 0.562617, 0.72295684, 1},
	"fp4": {0, 0.0052083335, 0.6666667, 1, 0.33333334, 0.5, 0.16666667, 0.25,
		-0, -0.0052083335, -0.6666667, -1, -0.33333334, -0.5, -0.16666667, -0.25},
	"int4": {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
}

// q4Path is one way MatMulQ4 computes: a CPU kernel's 4-bit kernels, or
// the portable loop (kn nil).
type q4Path struct {
	name string
	kn   *q4Kernels
}

// q4PathsHere lists the 4-bit kernels this CPU runs (AVX-512 and AVX2 on
// a CPU with both) and the portable loop.
func q4PathsHere() []q4Path {
	var ps []q4Path
	for _, k := range available() {
		if k.q4 != nil {
			ps = append(ps, q4Path{k.name, k.q4})
		}
		if k.q4 != nil && k.q4.cvt { // and the f32-register rounding it replaces
			f32 := *k.q4
			f32.cvt = false
			ps = append(ps, q4Path{k.name + "/round-f32", &f32})
		}
	}
	return append(ps, q4Path{"go", nil})
}

func (p q4Path) run(c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	if p.kn == nil || !p.kn.fits(b) {
		matMulQ4Go(c, ldc, a, lda, m, b, threads)
		return
	}
	matMulQ4Kern(p.kn, c, ldc, a, lda, m, b, threads)
}

// q4Mismatch returns the first C entry (of m rows, stride ldc) farther
// from the float64 product of a with the dequantized weight w ([N, K])
// than 1e-5 of the magnitude sum (of |a|·(|w| + |offset|): the portable
// loop adds the offsets' part separately), or "" if none; c's stride gaps
// must hold NaN still.
func q4Mismatch(c []float32, ldc int, a []float32, lda, m int, w []float32, b *PackedQ4) string {
	k, n := b.K, b.N
	for r := range m {
		for j := range ldc {
			got := c[r*ldc+j]
			if j >= n {
				if !math.IsNaN(float64(got)) {
					return fmt.Sprintf("C[%d,%d] past N written: %g", r, j, got)
				}
				continue
			}
			var want, mag float64
			for kk := range k {
				p := float64(a[r*lda+kk]) * float64(w[j*k+kk])
				want += p
				mag += math.Abs(p)
				if b.Offset != nil {
					mag += math.Abs(float64(a[r*lda+kk]) * float64(b.Offset[(j*k+kk)/b.Block]))
				}
			}
			if d := math.Abs(float64(got) - want); !(d <= 1e-5*mag+1e-30) {
				return fmt.Sprintf("C[%d,%d] = %g, want %g (|diff| %g, magnitude %g)", r, j, got, want, d, mag)
			}
		}
	}
	return ""
}

// q4Case is one product shape.
type q4Case struct{ m, k, n, block, threads int }

var q4Cases = []q4Case{
	{1, 64, 1, 64, 1}, {1, 128, 67, 64, 1}, {2, 256, 130, 128, 2}, {3, 192, 65, 64, 1},
	{4, 512, 33, 256, 2}, {5, 256, 200, 64, 3}, {8, 1024, 97, 128, 2}, {9, 128, 70, 32, 1},
	{1, 2048, 300, 64, 2}, {6, 96, 129, 32, 2},
}

// TestMatMulQ4Kernels: every 4-bit path this CPU runs (AVX-512, AVX2, Go)
// gives the product with the dequantized weight within f32 rounding, for
// 1 to 9 rows, ragged column counts, every table kind, with and without
// offsets, values rounded to bfloat16 or not, and leaves C's stride gaps
// alone.
func TestMatMulQ4Kernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	for _, p := range q4PathsHere() {
		for _, s := range q4Cases {
			for tname, table := range q4Tables {
				for _, v := range []struct{ off, round bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
					b := randQ4(rng, s.k, s.n, s.block, v.off)
					b.Table, b.RoundBF16 = table, v.round
					name := fmt.Sprintf("%s/m%d_k%d_n%d_b%d/%s/%+v", p.name, s.m, s.k, s.n, s.block, tname, v)
					if msg := runQ4Case(p, rng, b, s); msg != "" {
						t.Errorf("%s: %s", name, msg)
					}
				}
			}
		}
	}
}

// runQ4Case runs b's product through p on random activations and
// returns q4Mismatch's verdict against b's dequantized weight.
func runQ4Case(p q4Path, rng *rand.Rand, b *PackedQ4, s q4Case) string {
	w := make([]float32, b.N*b.K)
	b.Dequantize(w)
	return runQ4Against(p, rng, b, w, s)
}

func runQ4Against(p q4Path, rng *rand.Rand, b *PackedQ4, w []float32, s q4Case) string {
	lda, ldc := s.k+3, s.n+5
	a := randSlice(rng, s.m*lda)
	c := nanSlice(s.m * ldc)
	for r := range s.m {
		for j := range s.n {
			c[r*ldc+j] = 0
		}
	}
	p.run(c, ldc, a, lda, s.m, b, s.threads)
	return q4Mismatch(c, ldc, a, lda, s.m, w, b)
}

// TestMatMulQ4NibbleOrder: the check above sees a kernel that reads a
// byte's nibbles in the wrong order (here: every path on codes whose
// nibbles are swapped, checked against the unswapped weight).
func TestMatMulQ4NibbleOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 40))
	s := q4Case{2, 256, 70, 64, 1}
	for _, p := range q4PathsHere() {
		b := randQ4(rng, s.k, s.n, s.block, false)
		b.Table = q4Tables["nf4"]
		w := make([]float32, b.N*b.K)
		b.Dequantize(w)
		for i, x := range b.Codes {
			b.Codes[i] = x<<4 | x>>4
		}
		if runQ4Against(p, rng, b, w, s) == "" {
			t.Errorf("%s: swapped nibbles pass the check", p.name)
		}
	}
}

// BenchmarkQ4Kernels is each 4-bit path's compute rate on one thread with
// the weight in L2 (256 columns of K 2048), in multiply-adds per second,
// with float32 values and held in bfloat16 (bf16), and the VDPBF16PS
// kernels (MatMulQ4Dot) where the CPU has them:
// go test -run '^$' -bench Q4Kernels -benchtime 3000x -count 3 ./internal/gemm
func BenchmarkQ4Kernels(b *testing.B) {
	paths := q4PathsHere()
	if defaultKernel().q4 != nil && defaultKernel().q4.dot != nil {
		paths = append(paths, q4Path{name: "dot"})
	}
	for _, p := range paths {
		for _, bf16 := range []bool{false, true} {
			if p.name == "dot" && !bf16 {
				continue
			}
			for _, m := range []int{1, 4} {
				name := fmt.Sprintf("%s/m%d", p.name, m)
				if bf16 {
					name = fmt.Sprintf("%s/bf16/m%d", p.name, m)
				}
				b.Run(name, func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 1))
					n, k := 256, 2048
					w := randQ4(rng, k, n, 64, false)
					w.RoundBF16 = bf16
					a := randSlice(rng, m*k)
					c := make([]float32, m*n)
					for b.Loop() {
						if p.name == "dot" {
							MatMulQ4Dot(c, n, a, k, m, w, 1)
						} else {
							p.run(c, n, a, k, m, w, 1)
						}
					}
					sec := b.Elapsed().Seconds() / float64(b.N)
					b.ReportMetric(float64(m*n*k)/sec/1e9, "Gmac/s")
				})
			}
		}
	}
}

// TestQ4Parallel: q4Parallel hands every column to run exactly once, in
// slices of whole 64 columns (but the last), for any width and threads.
func TestQ4Parallel(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 512, 1000, 8192} {
		for _, threads := range []int{1, 2, 3, 8} {
			var mu sync.Mutex
			seen := make([]int, n)
			q4Parallel(n, minParallel, threads, func(n0, n1 int) {
				if n0%64 != 0 || (n1 != n && n1%64 != 0) {
					t.Errorf("n=%d threads=%d: slice [%d, %d) not of whole 64 columns", n, threads, n0, n1)
				}
				mu.Lock()
				defer mu.Unlock()
				for j := n0; j < n1; j++ {
					seen[j]++
				}
			})
			for j, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d threads=%d: column %d computed %d times", n, threads, j, c)
				}
			}
		}
	}
}
