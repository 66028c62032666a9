package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackQ4Into: the panels PackQ4Into writes from the codes are the
// ones PackBInto makes of the dequantized rows, bit for bit, for row
// ranges that end mid-panel, K not a multiple of the chunk, blocks
// smaller and larger than it, offsets and bf16 rounding.
func TestPackQ4Into(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 47))
	nr := defaultKernel().nr
	for _, s := range []struct{ k, n, block, n0, n1 int }{
		{128, 70, 64, 0, 70}, {2048, 3 * nr, 64, nr, 3 * nr}, {96, 50, 32, 7, 45}, {640, 40, 128, 1, 40}, {256, 9, 256, 3, 4},
	} {
		for _, v := range []struct{ off, round bool }{{false, false}, {true, false}, {false, true}} {
			b := randQ4(rng, s.k, s.n, s.block, v.off)
			b.RoundBF16 = v.round
			name := fmt.Sprintf("k%d_n%d_b%d_rows%d-%d/%+v", s.k, s.n, s.block, s.n0, s.n1, v)
			rows := make([]float32, (s.n1-s.n0)*s.k)
			b.DequantizeRows(rows, s.n0, s.n1)
			size := PackedSize(s.k, s.n1-s.n0)
			want := PackBInto(make([]float32, size), rows, s.k, s.n1-s.n0, s.k, true)
			dst := make([]float32, size)
			for i := range dst {
				dst[i] = float32(math.NaN()) // padding must be cleared, not left
			}
			got := PackQ4Into(dst, b, s.n0, s.n1)
			if got.K != want.K || got.N != want.N || len(got.data) != len(want.data) {
				t.Fatalf("%s: PackedB %dx%d (%d floats), want %dx%d (%d)", name, got.K, got.N, len(got.data), want.K, want.N, len(want.data))
			}
			for i := range want.data {
				if math.Float32bits(got.data[i]) != math.Float32bits(want.data[i]) {
					t.Fatalf("%s: packed float %d is %g, want %g", name, i, got.data[i], want.data[i])
				}
			}
		}
	}
}

// BenchmarkPackQ4 is a prefill tile (128 rows of K 2048, as gocpu's
// q4TileRows cuts them) packed from the codes, against dequantizing the
// rows and packing those: go test -run '^$' -bench PackQ4 ./internal/gemm
func BenchmarkPackQ4(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	k, rows := 2048, 128
	w := randQ4(rng, k, 1024, 64, false)
	dst := make([]float32, PackedSize(k, rows))
	tile := make([]float32, rows*k)
	for _, mode := range []string{"codes", "rows"} {
		b.Run(mode, func(b *testing.B) {
			i := 0
			for b.Loop() {
				n0 := (i * rows) % w.N
				if mode == "codes" {
					PackQ4Into(dst, w, n0, n0+rows)
				} else {
					w.DequantizeRows(tile, n0, n0+rows)
					PackBInto(dst, tile, k, rows, k, true)
				}
				i++
			}
			b.ReportMetric(float64(rows*k)/b.Elapsed().Seconds()*float64(b.N)/1e9, "Gval/s")
		})
	}
}
