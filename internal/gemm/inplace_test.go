package gemm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackInPlace: a weight packed in its own storage multiplies to the
// bits of the same weight packed into a copy (PackB, transposed), for
// every kernel and thread count; UnpackTo and Unpack give the weight back.
func TestPackInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, kern := range available() {
		if kern != goKernel && !selfCheck(kern) {
			continue
		}
		for _, c := range []struct{ m, n, k, threads int }{
			{1, kern.nr, 5, 1}, {9, 2 * kern.nr, 37, 2}, {70, 5 * kern.nr, 300, 3}, {3, 4 * kern.nr, kern.kc + 17, 2},
		} {
			t.Run(fmt.Sprintf("%s/m%d_n%d_k%d_th%d", kern.name, c.m, c.n, c.k, c.threads), func(t *testing.T) {
				w := randSlice(rng, c.n*c.k)
				a := randSlice(rng, c.m*c.k)
				orig := slices.Clone(w)
				want := make([]float32, c.m*c.n)
				matMul(want, c.n, a, c.k, c.m, packB(kern, orig, c.k, c.n, c.k, true), c.threads)

				pb := packInPlace(kern, w, c.n, c.k, c.threads)
				if &pb.data[0] != &w[0] {
					t.Fatal("PackInPlace did not pack in the weight's storage")
				}
				got := make([]float32, c.m*c.n)
				MatMul(got, c.n, a, c.k, c.m, pb, c.threads)
				sameBits(t, "in-place packed product", got, want)

				back := make([]float32, len(w))
				pb.UnpackTo(back)
				sameBits(t, "UnpackTo", back, orig)
				sameBits(t, "Unpack", pb.Unpack(c.threads), orig)
			})
		}
	}
}

func TestInPlaceOK(t *testing.T) {
	nr := defaultKernel().nr
	for _, c := range []struct {
		n, k int
		ok   bool
	}{{nr, 1, true}, {3 * nr, 896, true}, {nr + 1, 4, false}, {0, 4, false}, {nr, 0, false}} {
		if got := InPlaceOK(c.n, c.k); got != c.ok {
			t.Errorf("InPlaceOK(%d, %d) = %v, want %v", c.n, c.k, got, c.ok)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("PackInPlace of a weight whose rows are not a multiple of NR did not panic")
		}
	}()
	PackInPlace(make([]float32, (nr+1)*3), nr+1, 3, 1)
}
