package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// decodeShapes are Qwen2-0.5B decode products as the backend runs them:
// A = a weight [m, K] read in place (MLP up/gate, MLP down, the LM head),
// B = the activation rows transposed, N = 1 or 8 packed columns.
var decodeShapes = []struct{ m, k, n int }{
	{4864, 896, 1}, {896, 4864, 1}, {4864, 896, 8}, {151936, 896, 1},
}

// decodeStream is the A storage a decode benchmark cycles through, so that
// A streams from DRAM as in a decode step (2 GB of weights), not from L3.
const decodeStream = 96 << 20

// BenchmarkDecode compares packing A with reading it in place on decode
// shapes, reporting GB/s of A read and GFLOP/s (2·m·K·N per call):
// go test -run '^$' -bench Decode -benchtime 10x -count 3 ./internal/gemm
func BenchmarkDecode(b *testing.B) {
	for _, s := range decodeShapes {
		benchDecode(b, s.m, s.k, s.n)
	}
}

// BenchmarkDirectPanels is BenchmarkDecode for 1 to 16 B panels of the
// default kernel: where reading A in place stops paying (kernel.maxDirect).
func BenchmarkDirectPanels(b *testing.B) {
	nr := defaultKernel().nr
	for _, s := range [][2]int{{4864, 896}, {896, 4864}} {
		for _, np := range []int{1, 2, 4, 8, 16} {
			benchDecode(b, s[0], s[1], np*nr)
		}
	}
}

// benchDecode runs m×K×N with A packed per call and read in place, on 1
// and 2 threads.
func benchDecode(b *testing.B, m, k, n int) {
	var as [][]float32
	var pb *PackedB
	var c []float32
	for _, mode := range []string{"packed", "direct"} {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s/threads=%d", m, k, n, mode, th), func(b *testing.B) {
				kn := defaultKernel()
				if mode == "direct" && kn.direct == nil {
					b.Skipf("kernel %s has no direct path", kn.name)
				}
				if as == nil { // only for the shapes -bench selects
					as = decodeA(m*k, max(1, decodeStream/(4*m*k)))
					rng := rand.New(rand.NewPCG(5, 5))
					pb = PackB(randSlice(rng, k*n), k, n, n, false)
					c = make([]float32, m*n)
				}
				pb.kern = forceDirect(kn, mode == "direct")
				i := 0
				for b.Loop() {
					MatMul(c, n, as[i%len(as)], k, m, pb, th)
					i++
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(4*m*k)/sec/1e9, "GB/s")
				b.ReportMetric(2*float64(m)*float64(k)*float64(n)/sec/1e9, "GFLOP/s")
			})
		}
	}
}

// decodeA makes copies A matrices of size floats with values in [-0.5, 0.5).
func decodeA(size, copies int) [][]float32 {
	rng := rand.New(rand.NewPCG(7, 7))
	as := make([][]float32, copies)
	for i := range as {
		as[i] = make([]float32, size)
		for j := range as[i] {
			as[i][j] = rng.Float32() - 0.5
		}
	}
	return as
}
