package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSwiGLU: each kernel's SwiGLU gives the bits of its own Logistic
// followed by the two float32 products (what the CPU backend computed
// before the product moved into the loop), for every length (the tails
// of the assembly loop), special values, and dst aliasing g or u.
func TestSwiGLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	ks := kernels()
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 88, -88, 104, -104, 1e-30, -1e-30, math.MaxFloat32, -math.MaxFloat32}
	for _, k := range ks {
		for n := 0; n <= 37; n++ {
			g, u := make([]float32, n), make([]float32, n)
			for i := range g {
				g[i] = float32(rng.NormFloat64() * 8)
				u[i] = float32(rng.NormFloat64() * 3)
				if rng.IntN(4) == 0 {
					g[i] = special[rng.IntN(len(special))]
				}
			}
			want := make([]float32, n)
			k.logistic(want, g)
			for i := range want {
				want[i] = float32(g[i]*want[i]) * u[i]
			}
			got := make([]float32, n)
			k.swiglu(got, g, u)
			gAlias := append([]float32(nil), g...)
			k.swiglu(gAlias, gAlias, u)
			uAlias := append([]float32(nil), u...)
			k.swiglu(uAlias, g, uAlias)
			for i := range want {
				if !same(got[i], want[i]) || !same(gAlias[i], want[i]) || !same(uAlias[i], want[i]) {
					t.Fatalf("%s n=%d: SwiGLU(%v, %v) = %v (aliased %v, %v), want %v", k.name, n, g[i], u[i], got[i], gAlias[i], uAlias[i], want[i])
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SwiGLU with len(u) != len(dst) did not panic")
		}
	}()
	SwiGLU(make([]float32, 3), make([]float32, 3), make([]float32, 2))
}

// TestScaleMask: each kernel's ScaleMask gives a scalar loop's product
// and choice, for every length, special values, and dst aliasing src.
func TestScaleMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ks := kernels()
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.MaxFloat32, 1e-45}
	for _, k := range ks {
		for _, sf := range [][2]float32{{0.125, float32(math.Inf(-1))}, {3.3, -1e30}, {-0.7, float32(math.NaN())}} {
			for n := 0; n <= 37; n++ {
				src, mask := make([]float32, n), make([]bool, n)
				want := make([]float32, n)
				for i := range src {
					src[i] = float32(rng.NormFloat64() * 10)
					if rng.IntN(5) == 0 {
						src[i] = special[rng.IntN(len(special))]
					}
					mask[i] = rng.IntN(3) > 0
					want[i] = sf[1]
					if mask[i] {
						want[i] = src[i] * sf[0]
					}
				}
				got := make([]float32, n)
				k.scaleMask(got, src, mask, sf[0], sf[1])
				alias := append([]float32(nil), src...)
				k.scaleMask(alias, alias, mask, sf[0], sf[1])
				for i := range want {
					if !same(got[i], want[i]) || !same(alias[i], want[i]) {
						t.Fatalf("%s n=%d: ScaleMask(%v, %v, %v, %v) = %v (aliased %v), want %v", k.name, n, src[i], mask[i], sf[0], sf[1], got[i], alias[i], want[i])
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ScaleMask with len(mask) != len(src) did not panic")
		}
	}()
	ScaleMask(make([]float32, 3), make([]float32, 3), make([]bool, 2), 1, 0)
}
