package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpShiftedAndDiv: ExpShifted(x, m) has the bits of Exp(x − m) and
// DivScalar those of a scalar division, for every kernel, at lengths that
// exercise the vector loop and the tail, in place too.
func TestExpShiftedAndDiv(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, k := range kernels() {
		for _, n := range []int{1, 7, 8, 9, 720, 1001} {
			src := make([]float32, n)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * 30)
			}
			src[0] = float32(math.Inf(-1))
			m, s := float32(rng.NormFloat64()*10), float32(rng.NormFloat64()*3)
			want, got := make([]float32, n), make([]float32, n)
			for i, x := range src {
				want[i] = x - m
			}
			k.exp(want, want)
			k.expSub(got, src, m)
			for i := range got {
				if !same(got[i], want[i]) {
					t.Fatalf("%s n=%d: ExpShifted(%v, %v) = %v, Exp of the difference %v", k.name, n, src[i], m, got[i], want[i])
				}
			}
			copy(got, src)
			k.div(got, got, s)
			for i := range got {
				if q := src[i] / s; !same(got[i], q) {
					t.Fatalf("%s n=%d: DivScalar(%v, %v) = %v, want %v", k.name, n, src[i], s, got[i], q)
				}
			}
		}
	}
}
