package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The 4-bit kernels' results are part of goeval's numbers (decode's
// log-probs and greedy tokens), so a faster kernel must give the same
// bits, not only values within f32 rounding: the same value in each lane
// of each accumulator, added in the same order, and the same sum of the
// lanes at the end. q4Emulate is that arithmetic in Go, the reference a
// kernel is held to bit for bit.

// q4Emulate is the kernel arithmetic of kn for one row x ([K]) and
// column n of b, whatever the rows computed with it: per step, vector t
// (of step/4 lanes, lane j holding k = order[t·lanes + j]) into
// accumulator t mod 2, then the two accumulators added and the lanes
// halved down to one (HSUM512, HSUM256).
func q4Emulate(kn *q4Kernels, x []float32, b *PackedQ4, n int) float32 {
	lanes := kn.step / 4
	accs := make([][]float32, 2)
	for i := range accs {
		accs[i] = make([]float32, lanes)
	}
	var tbl [16]float32
	bpr := b.K / b.Block
	for k0 := 0; k0 < b.K; k0 += kn.step {
		if k0%b.Block == 0 {
			kn.kernelTable(&tbl, b, n*bpr+k0/b.Block)
		}
		for t := range 4 {
			acc := accs[t%2]
			for j := range lanes {
				k := k0 + kn.order[t*lanes+j]
				code := b.Codes[(n*b.K+k)/2]
				if k%2 == 0 {
					code >>= 4
				}
				acc[j] = fma32(x[k], tbl[code&0xF], acc[j])
			}
		}
	}
	z := make([]float32, lanes)
	for j := range z {
		z[j] = accs[0][j] + accs[1][j]
	}
	for len(z) > 1 { // halves: 16 → 8 → 4 → 2 → 1
		h := len(z) / 2
		for j := range h {
			z[j] += z[j+h]
		}
		z = z[:h]
	}
	return z[0]
}

// TestQ4KernelsBitExact: every assembly 4-bit kernel here gives exactly
// q4Emulate's bits, for one row and for several (in fours, and many rows
// through the many-row kernels), every table
// kind, with and without offsets and bf16 rounding, one and two threads,
// one row of a long K two columns at a time (q4PairsMinK), whole and
// partial groups of four rows, several rows of a long K.
func TestQ4KernelsBitExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 45))
	cases := []q4Case{{1, 128, 67, 64, 1}, {1, 2048, 300, 64, 2}, {3, 256, 130, 128, 2}, {6, 512, 70, 64, 1}, {1, 256, 5, 256, 1},
		{1, q4PairsMinK, 131, 64, 2}, {1, 2 * q4PairsMinK, 3, 128, 1}, // two columns at a time, an odd one last
		{8, 256, 70, 64, 2}, {13, 128, 67, 64, 1}, // whole and partial groups of four rows
		{4, 4096, 70, 64, 2}, {2, 3072, 67, 128, 1}, {5, 1280, 5, 256, 1}, {3, 4608, 66, 256, 2}, {2, 4096, 3, 2048, 1}, // several rows of a long K
		{9, 256, 70, 64, 2}, {50, 512, 131, 128, 2}, {31, 2048, 67, 64, 1}, // many rows (q4ManyMinRows): partial row and column tiles
		{130, 8192, 37, 64, 2}} // two row blocks (q4ManyRowBlock), three column tiles (q4ManyTileCols)
	for _, p := range q4PathsHere() {
		if p.kn == nil {
			continue
		}
		for _, s := range cases {
			for tname, table := range q4Tables {
				for _, v := range []struct{ off, round bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
					b := randQ4(rng, s.k, s.n, s.block, v.off)
					b.Table, b.RoundBF16 = table, v.round
					name := fmt.Sprintf("%s/m%d_k%d_n%d_b%d/%s/%+v", p.name, s.m, s.k, s.n, s.block, tname, v)
					if msg := q4BitMismatch(p, rng, b, s); msg != "" {
						t.Errorf("%s: %s", name, msg)
					}
				}
			}
		}
	}
}

// TestQ4KernelsSubnormalTables: blocks whose scaled values are subnormal
// (or round to one) give q4Emulate's bits on every kernel, bfloat16
// lookups (which read them as zero) and f32-register rounding alike.
func TestQ4KernelsSubnormalTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 47))
	s := q4Case{3, 256, 70, 64, 1}
	for _, p := range q4PathsHere() {
		if p.kn == nil {
			continue
		}
		for _, round := range []bool{false, true} {
			b := randQ4(rng, s.k, s.n, s.block, false)
			b.RoundBF16 = round
			for i := range b.Scale { // every block tiny, so the sums are too
				b.Scale[i] = 0x1p-130 // every value subnormal
				if i%2 == 1 {
					b.Scale[i] = 0x1.fffp-124 // some values subnormal, some not
				}
			}
			if msg := q4BitMismatch(p, rng, b, s); msg != "" {
				t.Errorf("%s/round=%v: %s", p.name, round, msg)
			}
		}
	}
}

// q4BitMismatch runs b's product through p and returns the first output
// whose bits differ from q4Emulate's, or "".
func q4BitMismatch(p q4Path, rng *rand.Rand, b *PackedQ4, s q4Case) string {
	a := randSlice(rng, s.m*b.K)
	c := make([]float32, s.m*b.N)
	p.run(c, b.N, a, b.K, s.m, b, s.threads)
	for r := range s.m {
		for n := range b.N {
			want := q4Emulate(p.kn, a[r*b.K:(r+1)*b.K], b, n)
			if got := c[r*b.N+n]; math.Float32bits(got) != math.Float32bits(want) {
				return fmt.Sprintf("C[%d,%d] = %g (%#x), want %g (%#x)", r, n, got, math.Float32bits(got), want, math.Float32bits(want))
			}
		}
	}
	return ""
}
