package nn

import (
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// TestInt8DotExact checks int8Dot's three forms (one product, split,
// chunked) against the exact integer sums converted once to float32, at
// contractions just inside each form's bound, with random codes and with
// codes and weights near ±127 (the largest sums; a split into parts of up
// to 64, or none, fails there).
func TestInt8DotExact(t *testing.T) {
	forms := map[string]func(codes, cb *Node) *Node{"int8Dot": int8Dot, "split": int8DotSplit, "chunked": int8DotChunked}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, in := range []int{int8ExactK, 2080, int8SplitK} {
		for _, extreme := range []bool{false, true} {
			const s, r, out = 2, 3, 4
			codes, cb := make([]float32, s*r*in), make([]float32, out*in)
			for _, v := range [][]float32{codes, cb} {
				for i := range v {
					v[i] = float32(rng.IntN(255) - 127)
				}
			}
			if extreme { // codes and weights of 113…127, rows of either sign: sums near ±127²·in
				for i := range codes {
					codes[i] = float32((113 + rng.IntN(15)) * (1 - 2*(i/in%2)))
				}
				for i := range cb {
					cb[i] = float32(113 + rng.IntN(15))
				}
			}
			want := make([]float32, s*r*out)
			for row := range s * r {
				for o := range out {
					var acc int64
					for k := range in {
						acc += int64(codes[row*in+k]) * int64(cb[o*in+k])
					}
					want[row*out+o] = float32(acc)
				}
			}
			for bname, b := range int8Backends(t) {
				for fname, f := range forms {
					if fname == "chunked" && in <= int8ExactK {
						continue
					}
					got := MustExecOnce(b, func(c, w *Node) *Node { return f(Reshape(c, s, r, in), Reshape(w, out, in)) }, codes, cb).Value().([][][]float32)
					for i, v := range flat3(got) {
						if v != want[i] {
							t.Fatalf("%s %s in=%d extreme=%v: output %d = %v, exact %v", bname, fname, in, extreme, i, v, want[i])
						}
					}
				}
			}
		}
	}
}

func flat3(x [][][]float32) []float32 {
	var out []float32
	for _, a := range x {
		for _, b := range a {
			out = append(out, b...)
		}
	}
	return out
}
