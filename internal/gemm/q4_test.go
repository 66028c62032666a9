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

// BenchmarkDecodeQ4 compares one decode row (m = 1) through packed 4-bit
// weights with bf16-held ones at Llama-3.2-1B's MLP shapes, cycling
// through copies so the weights stream from DRAM:
// go test -run '^$' -bench DecodeQ4 -benchtime 20x -count 3 ./internal/gemm
func BenchmarkDecodeQ4(b *testing.B) {
	for _, s := range []struct{ n, k int }{{8192, 2048}, {2048, 8192}} {
		for _, dt := range []string{"bf16", "q4"} {
			b.Run(fmt.Sprintf("1x%dx%d/%s", s.n, s.k, dt), func(b *testing.B) {
				if dt == "bf16" {
					benchWeight(b, 1, s.n, s.k, "bf16")
					return
				}
				benchQ4(b, s.n, s.k)
			})
		}
	}
}

func benchQ4(b *testing.B, n, k int) {
	rng := rand.New(rand.NewPCG(8, 8))
	copies := max(1, decodeStream/(n*k/2))
	a := randSlice(rng, k)
	c := make([]float32, n)
	ws := make([]*PackedQ4, copies)
	for i := range ws {
		ws[i] = randQ4(rng, k, n, 64, false)
	}
	i := 0
	for b.Loop() {
		MatMulQ4(c, n, a, k, 1, ws[i%len(ws)], 2)
		i++
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(n*k/2)/sec/1e9, "GB/s")
	b.ReportMetric(2*float64(n)*float64(k)/sec/1e9, "GFLOP/s")
}
