package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// weightShapes are Qwen2.5-0.5B products with the weight [N, K] packed in
// place as B: decode (1 and 16 rows), the LM head, and a scoring pass.
var weightShapes = []struct{ m, n, k int }{
	{1, 4864, 896}, {1, 896, 4864}, {16, 4864, 896}, {16, 896, 4864},
	{1, 151936, 896}, {16, 151936, 896}, {512, 4864, 896}, {512, 896, 4864}, {2048, 4864, 896},
}

// BenchmarkWeightBF16 compares the f32 weight with the bf16 one, widened
// in the kernels or multiplied by VDPBF16PS where the CPU has it (all
// packed in place, cycling through copies so that the weight streams from
// DRAM as in a decode step), reporting GB/s of weight read and GFLOP/s:
// go test -run '^$' -bench WeightBF16 -benchtime 20x -count 3 ./internal/gemm
func BenchmarkWeightBF16(b *testing.B) {
	for _, s := range weightShapes {
		for _, dt := range []string{"f32", "bf16", "bf16dot"} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", s.m, s.n, s.k, dt), func(b *testing.B) {
				if dt == "bf16dot" && !HasBF16Dot() {
					b.Skip("no VDPBF16PS here")
				}
				benchWeight(b, s.m, s.n, s.k, dt)
			})
		}
	}
}

func benchWeight(b *testing.B, m, n, k int, dt string) {
	bf16 := dt != "f32"
	rng := rand.New(rand.NewPCG(8, 8))
	copies := max(1, decodeStream/(4*n*k))
	a := randSlice(rng, m*k)
	c := make([]float32, m*n)
	var run []func()
	for range copies {
		w := randSlice(rng, n*k)
		if bf16 {
			h := make([]uint16, len(w))
			for i, v := range w {
				h[i] = uint16(math.Float32bits(v) >> 16)
			}
			pb := PackInPlaceBF16(h, n, k, 2)
			mul := MatMulBF16
			if dt == "bf16dot" {
				mul = MatMulBF16Dot
			}
			run = append(run, func() { mul(c, n, a, k, m, pb, 2) })
		} else {
			pb := PackInPlace(w, n, k, 2)
			run = append(run, func() { MatMul(c, n, a, k, m, pb, 2) })
		}
	}
	i := 0
	for b.Loop() {
		run[i%len(run)]()
		i++
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	size := 4
	if bf16 {
		size = 2
	}
	b.ReportMetric(float64(size*n*k)/sec/1e9, "GB/s")
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)/sec/1e9, "GFLOP/s")
}
