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

// TestConvertDirect: the direct conversions give the float64 path's
// values: bool and int32 (extremes, past 2²⁴) to float32, float32 (halves,
// negatives, ±0, past int32's range, NaN) to int32.
func TestConvertDirect(t *testing.T) {
	x := &runCtx{b: &Backend{threads: 2}}
	ints := []int32{0, 1, -1, 16777217, -16777217, math.MaxInt32, math.MinInt32, 123456789}
	f := make([]float32, len(ints))
	if !convertDirect(x, f, ints) {
		t.Fatal("int32 → float32 not converted directly")
	}
	for i, v := range ints {
		if f[i] != float32(float64(v)) {
			t.Errorf("float32(%d) = %v, want %v", v, f[i], float32(float64(v)))
		}
	}
	b := []bool{true, false, true}
	fb := make([]float32, 3)
	if !convertDirect(x, fb, b) || fb[0] != 1 || fb[1] != 0 || fb[2] != 1 {
		t.Errorf("bool → float32: %v", fb)
	}
	fl := []float32{0.5, -0.5, 1.9, -1.9, float32(math.Copysign(0, -1)), 3e9, -3e9, float32(math.NaN()), 2147483520}
	n := make([]int32, len(fl))
	if !convertDirect(x, n, fl) {
		t.Fatal("float32 → int32 not converted directly")
	}
	for i, v := range fl {
		if want := int32(float64(v)); n[i] != want {
			t.Errorf("int32(%v) = %d, want %d", v, n[i], want)
		}
	}
}
