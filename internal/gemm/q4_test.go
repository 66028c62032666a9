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

// BenchmarkQ4Many compares MatMulQ4's many-row path with what gocpu ran
// before it (and runs without 4-bit kernels): tiles of the weight
// dequantized into packed panels (PackQ4Into) and multiplied by MatMul,
// 2 threads, a weight held in bfloat16 in blocks of 64.
func BenchmarkQ4Many(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct{ m, k, n int }{{400, 2048, 2048}, {1600, 2048, 8192}, {1600, 8192, 2048}} {
		q := randQ4(rng, s.k, s.n, 64, false)
		q.RoundBF16 = true
		a := randSlice(rng, s.m*s.k)
		c := make([]float32, s.m*s.n)
		gmac := func(b *testing.B) {
			b.ReportMetric(float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmac/s")
		}
		b.Run(fmt.Sprintf("many/%dx%dx%d", s.m, s.k, s.n), func(b *testing.B) {
			for range b.N {
				MatMulQ4(c, s.n, a, s.k, s.m, q, 2)
			}
			gmac(b)
		})
		b.Run(fmt.Sprintf("tiles/%dx%dx%d", s.m, s.k, s.n), func(b *testing.B) {
			rows := max(64, (1<<18)/s.k/64*64)
			scratch := make([]float32, PackedSize(s.k, rows))
			for range b.N {
				for n0 := 0; n0 < s.n; n0 += rows {
					MatMul(c[n0:], s.n, a, s.k, s.m, PackQ4Into(scratch, q, n0, min(s.n, n0+rows)), 2)
				}
			}
			gmac(b)
		})
	}
}

// TestMatMulQ4RowsIndependent: on every path here a row's result has the
// same bits alone, among a few rows (the lookup kernels' one and four
// rows) and among many (the many-row kernels, several row blocks and
// column tiles), with one thread or three; and the portable path's are
// those of MatMul with the dequantized weight (so gocpu may run its many
// rows that way).
func TestMatMulQ4RowsIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	for _, s := range []struct{ k, n, block int }{{256, 70, 64}, {2048, 37, 128}, {8192, 13, 64}} {
		b := randQ4(rng, s.k, s.n, s.block, true)
		b.RoundBF16 = s.k == 2048
		const m = 150 // more than q4ManyRowBlock(8192) rows
		a := randSlice(rng, m*s.k)
		for _, p := range q4PathsHere() {
			name := fmt.Sprintf("%s/k%d_n%d", p.name, s.k, s.n)
			all := make([]float32, m*s.n)
			p.run(all, s.n, a, s.k, m, b, 3)
			for _, rows := range []int{1, 2, 4, 8, 9, 40} {
				for _, threads := range []int{1, 3} {
					r0 := m - rows - 7 // rows [r0, r0+rows), row r0 first among them
					c := make([]float32, rows*s.n)
					p.run(c, s.n, a[r0*s.k:], s.k, rows, b, threads)
					if msg := firstBitDiff(c, all[r0*s.n:(r0+rows)*s.n]); msg != "" {
						t.Errorf("%s: rows %d..%d as %d rows (%d threads) differ from the same among %d: %s", name, r0, r0+rows-1, rows, threads, m, msg)
					}
				}
			}
			if p.kn != nil && p.kn.fits(b) {
				continue
			}
			w := make([]float32, s.n*s.k)
			b.Dequantize(w)
			want := make([]float32, m*s.n)
			MatMul(want, s.n, a, s.k, m, PackB(w, s.k, s.n, s.k, true), 1)
			if msg := firstBitDiff(all, want); msg != "" {
				t.Errorf("%s: the portable path differs from MatMul with the dequantized weight: %s", name, msg)
			}
		}
	}
}

// firstBitDiff describes the first index where got and want differ in
// bits, or is "".
func firstBitDiff(got, want []float32) string {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return fmt.Sprintf("[%d] = %g, want %g", i, got[i], want[i])
		}
	}
	return ""
}
