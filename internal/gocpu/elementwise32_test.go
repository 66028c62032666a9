package gocpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUnary32Loops: the float32 loops of Abs, Neg, Round, Floor and Ceil
// give the float64 forms' values, bit for bit (NaNs as NaNs), on halves,
// signed zeros, infinities, subnormals, values past 2²³ and random ones.
func TestUnary32Loops(t *testing.T) {
	src := []float32{0, float32(math.Copysign(0, -1)), 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 8388607.5, 8388609, -8388607.5,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		src = append(src, float32(rng.NormFloat64()*100), math.Float32frombits(rng.Uint32()))
	}
	for name, c := range map[string]struct {
		loop func(dst, src []float32)
		f    func(float64) float64
	}{
		"Abs": {abs32, math.Abs}, "Neg": {neg32, func(v float64) float64 { return -v }}, "Round": {round32, math.RoundToEven},
		"Floor": {floor32, math.Floor}, "Ceil": {ceil32, math.Ceil},
	} {
		dst := make([]float32, len(src))
		c.loop(dst, src)
		for i, v := range src {
			want := float32(c.f(float64(v)))
			if math.Float32bits(dst[i]) != math.Float32bits(want) && !(want != want && dst[i] != dst[i]) {
				t.Errorf("%s(%v) = %v, want %v", name, v, dst[i], want)
			}
		}
	}
}
