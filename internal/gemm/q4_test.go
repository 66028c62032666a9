package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randQ4 is a random K×N PackedQ4 with nf4-like table, optional offsets.
func randQ4(rng *rand.Rand, k, n, block int, offset bool) *PackedQ4 {
	b := &PackedQ4{K: k, N: n, Block: block, Codes: make([]byte, n*k/2), Scale: make([]float32, n*k/block)}
	for i := range b.Table {
		b.Table[i] = float32(i-7) / 8
	}
	for i := range b.Codes {
		b.Codes[i] = byte(rng.IntN(256))
	}
	for i := range b.Scale {
		b.Scale[i] = rng.Float32() * 0.1
	}
	if offset {
		b.Offset = randSlice(rng, len(b.Scale))
	}
	return b
}

// TestMatMulQ4 checks the packed product against the naive product with
// the dequantized weight, within f32 rounding of the magnitude sum.
func TestMatMulQ4(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 4))
	for _, s := range []struct{ m, k, n, block, threads int }{
		{1, 64, 3, 64, 1}, {3, 256, 96, 64, 2}, {8, 256, 192, 32, 2}, {2, 1024, 160, 128, 3},
	} {
		for _, off := range []bool{false, true} {
			name := fmt.Sprintf("m%d_k%d_n%d_b%d_off%v", s.m, s.k, s.n, s.block, off)
			b := randQ4(rng, s.k, s.n, s.block, off)
			w := make([]float32, s.n*s.k)
			b.Dequantize(w)
			lda, ldc := s.k+3, s.n+5
			a := randSlice(rng, s.m*lda)
			c := make([]float32, s.m*ldc)
			MatMulQ4(c, ldc, a, lda, s.m, b, s.threads)
			for r := range s.m {
				for j := range s.n {
					var want, mag float64
					for k := range s.k {
						p := float64(a[r*lda+k]) * float64(w[j*s.k+k])
						want += p
						mag += math.Abs(p)
					}
					if d := math.Abs(float64(c[r*ldc+j]) - want); d > 1e-5*mag+1e-30 {
						t.Fatalf("%s: C[%d,%d] = %g, want %g (|diff| %g, magnitude %g)", name, r, j, c[r*ldc+j], want, d, mag)
					}
				}
			}
		}
	}
}

// TestPackedQ4Validate checks that inconsistent weights are refused.
func TestPackedQ4Validate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	good := randQ4(rng, 128, 4, 64, true)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]func(*PackedQ4){
		"ragged K":    func(b *PackedQ4) { b.K = 96 },
		"short codes": func(b *PackedQ4) { b.Codes = b.Codes[1:] },
		"short scale": func(b *PackedQ4) { b.Scale = b.Scale[1:] },
		"offsets":     func(b *PackedQ4) { b.Offset = b.Offset[1:] },
	} {
		b := *good
		bad(&b)
		if b.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// q4BenchShapes are Llama-3.2-1B's decode products as [N, K] weights:
// MLP gate/up, MLP down, attention q/o, attention k/v.
var q4BenchShapes = [][2]int{{8192, 2048}, {2048, 8192}, {2048, 2048}, {512, 2048}}

// BenchmarkDecodeQ4 compares 1 and 4 decode rows through packed 4-bit
// weights (the CPU's 4-bit kernels, q4; held in bfloat16, q4bf; through
// the VDPBF16PS kernels where the CPU has them, q4dot; the portable loop,
// q4go) with bf16-held ones (packed in place, the bf16 decode path) at Llama-3.2-1B's shapes,
// on 2 threads, each cycling through copies of at least 96 MiB so the
// weights stream from DRAM as in a decode step; GB/s is of weight bytes:
// go test -run '^$' -bench DecodeQ4 -benchtime 30x -count 2 ./internal/gemm
func BenchmarkDecodeQ4(b *testing.B) {
	for _, m := range []int{1, 4} {
		for _, s := range q4BenchShapes {
			for _, dt := range []string{"bf16", "q4", "q4bf", "q4dot", "q4go"} {
				if dt == "q4dot" && (defaultKernel().q4 == nil || defaultKernel().q4.dot == nil) {
					continue
				}
				b.Run(fmt.Sprintf("%dx%dx%d/%s", m, s[0], s[1], dt), func(b *testing.B) {
					benchQ4(b, m, s[0], s[1], dt)
				})
			}
		}
	}
}

func benchQ4(b *testing.B, m, n, k int, dt string) {
	rng := rand.New(rand.NewPCG(8, 8))
	bytes := n * k / 2
	if dt == "bf16" {
		bytes = 2 * n * k
	}
	copies := max(2, (decodeStream+bytes-1)/bytes)
	a := randSlice(rng, m*k)
	c := make([]float32, m*n)
	run := make([]func(), copies)
	for i := range run {
		if dt == "bf16" {
			h := make([]uint16, n*k)
			for j := range h {
				h[j] = uint16(math.Float32bits(rng.Float32()-0.5) >> 16)
			}
			pb := PackInPlaceBF16(h, n, k, 2)
			run[i] = func() { MatMulBF16(c, n, a, k, m, pb, 2) }
			continue
		}
		w := randQ4(rng, k, n, 64, false)
		w.RoundBF16 = dt == "q4bf" || dt == "q4dot"
		switch dt {
		case "q4go":
			run[i] = func() { matMulQ4Go(c, n, a, k, m, w, 2) }
		case "q4dot":
			run[i] = func() { MatMulQ4Dot(c, n, a, k, m, w, 2) }
		default:
			run[i] = func() { MatMulQ4(c, n, a, k, m, w, 2) }
		}
	}
	i := 0
	for b.Loop() {
		run[i%len(run)]()
		i++
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(bytes)/sec/1e9, "GB/s")
	b.ReportMetric(2*float64(m*n*k)/sec/1e9, "GFLOP/s")
}
