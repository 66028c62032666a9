package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchShapes are Qwen2-0.5B-like matmuls: prefill of 512 tokens (MLP up,
// MLP down, attention projection) and decode (1 or 16 rows: memory-bound,
// B streamed from DRAM once per call; the last is the LM head).
var benchShapes = []struct{ m, k, n int }{
	{512, 896, 4864}, {512, 4864, 896}, {512, 896, 896},
	{1, 896, 4864}, {1, 4864, 896}, {16, 896, 4864}, {16, 896, 151936},
}

// BenchmarkMatMul reports GFLOP/s (2·m·K·N per call) per shape and thread
// count: go test -run '^$' -bench MatMul ./internal/gemm
func BenchmarkMatMul(b *testing.B) {
	for _, s := range benchShapes {
		var a, c []float32
		var pb *PackedB
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dx%dx%d/threads=%d", s.m, s.k, s.n, th), func(b *testing.B) {
				if pb == nil { // only for the shapes -bench selects
					rng := rand.New(rand.NewPCG(5, 5))
					a = randSlice(rng, s.m*s.k)
					pb = PackB(randSlice(rng, s.k*s.n), s.k, s.n, s.n, false)
					c = make([]float32, s.m*s.n)
				}
				for b.Loop() {
					MatMul(c, s.n, a, s.k, s.m, pb, th)
				}
				flops := 2 * float64(s.m) * float64(s.k) * float64(s.n) * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkKernel is the default micro-kernel alone with its operands in
// L1/L2 (one B micro-panel, k = 256, against 24 A micro-panels): the
// ceiling MatMul's single-thread figures compare with.
func BenchmarkKernel(b *testing.B) {
	kn := defaultKernel()
	const k, tiles = 256, 24
	rng := rand.New(rand.NewPCG(6, 6))
	a := randSlice(rng, tiles*k*kn.mr)
	bp := randSlice(rng, k*kn.nr)
	c := make([]float32, tiles*kn.mr*kn.nr)
	for b.Loop() {
		for t := 0; t < tiles; t++ {
			kn.run(k, a[t*k*kn.mr:], bp, c[t*kn.mr*kn.nr:], kn.nr, true, hint{})
		}
	}
	flops := 2 * float64(k*kn.mr*kn.nr*tiles) * float64(b.N)
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
