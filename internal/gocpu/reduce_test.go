package gocpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/backends"
)

// TestFoldWrittenOut: fold's written-out max and min give the bits of
// folding maxNaN / minNaN in order, NaN, ±0 and ±Inf included.
func TestFoldWrittenOut(t *testing.T) {
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		run := make([]float32, 1+rng.IntN(9))
		for i := range run {
			if rng.IntN(2) == 0 {
				run[i] = special[rng.IntN(len(special))]
			} else {
				run[i] = float32(rng.NormFloat64())
			}
		}
		for _, c := range []struct {
			op   backends.OpType
			f    func(a, v float32) float32
			init float32
		}{
			{backends.OpTypeReduceMax, maxNaN[float32], lowest[float32]()},
			{backends.OpTypeReduceMin, minNaN[float32], highest[float32]()},
		} {
			want := fold(run, c.init, c.f, backends.OpTypeReduceProduct) // the generic loop through f
			got := fold(run, c.init, c.f, c.op)
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Fatalf("trial %d %s of %v: %v, folding through f gives %v", trial, c.op, run, got, want)
			}
		}
	}
}
