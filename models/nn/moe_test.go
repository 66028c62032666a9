package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/internal/gocpu"
)

func TestTopK(t *testing.T) {
	backend, err := gocpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	x := [][]float32{{0.1, 0.5, 0.2, 0.5, 0.05}, {3, 2, 1, 0, -1}}
	outs := MustExecOnceN(backend, func(x *Node) []*Node { v, i := TopK(x, 3); return []*Node{v, i} }, x)
	vals, idx := outs[0].Value().([][]float32), outs[1].Value().([][]int32)
	want := [][]int32{{1, 3, 2}, {0, 1, 2}}
	for r := range want {
		for c := range want[r] {
			if idx[r][c] != want[r][c] || vals[r][c] != x[r][want[r][c]] {
				t.Fatalf("row %d: TopK = %v %v, want indices %v", r, vals[r], idx[r], want[r])
			}
		}
	}
}

// moeCase is a random MoE layer: E experts of [F, H], N tokens routed to
// K experts each (skewed: the first experts take most slots; with all, every
// token takes experts 0…K−1, the worst case of the grouped layout).
type moeCase struct {
	n, h, f, e, k int
	all           bool
}

// TestMoELayouts: the grouped layout (tiles sorted by expert) and the
// direct one (every expert on every token) give the same bits on the
// pure-Go backend, within 1e-5 of a float64 reference, for routings from
// even to all tokens on the same experts (the grouped layout's worst case,
// which must not overflow its tiles); and the first tokens' bits do not
// change when the tokens after them are dropped (other shapes, other
// tiles).
func TestMoELayouts(t *testing.T) {
	backend, err := gocpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	rng := rand.New(rand.NewPCG(3, 4))
	norm := func(n int, s float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * s)
		}
		return out
	}
	for _, c := range []moeCase{{7, 16, 24, 4, 2, false}, {40, 16, 24, 4, 2, false}, {40, 16, 24, 4, 2, true},
		{130, 16, 24, 8, 3, false}, {1, 16, 24, 8, 3, false}} {
		gate, up, down := norm(c.e*c.f*c.h, 0.3), norm(c.e*c.f*c.h, 0.3), norm(c.e*c.h*c.f, 0.3)
		x, experts, weights := norm(c.n*c.h, 1), make([]int32, c.n*c.k), norm(c.n*c.k, 1)
		for i := range c.n {
			perm := rng.Perm(c.e)
			if c.all {
				perm = rng.Perm(c.k)
			} else if j := slices.Index(perm, 0); rng.IntN(2) == 0 { // skew toward expert 0
				perm[0], perm[j] = 0, perm[0]
			}
			for j := range c.k {
				experts[i*c.k+j] = int32(perm[j])
			}
		}
		run := func(n int, grouped bool) []float32 {
			out := MustExecOnce(backend, func(x, ex, w, gt, u, d *Node) *Node {
				m := testMoE(c.e, gt, u, d)
				var y, rows *Node
				if grouped {
					y, rows = m.grouped(x, ex)
				} else {
					y, rows = m.direct(x, ex)
				}
				picked := Gather(y, Reshape(rows, n, c.k, 1))
				return ReduceSum(Mul(picked, BroadcastToDims(Reshape(w, n, c.k, 1), n, c.k, c.h)), 1)
			}, tensors.FromFlatDataAndDimensions(x[:n*c.h], n, c.h), tensors.FromFlatDataAndDimensions(experts[:n*c.k], n, c.k),
				tensors.FromFlatDataAndDimensions(weights[:n*c.k], n, c.k), tensors.FromFlatDataAndDimensions(gate, c.e, c.f, c.h),
				tensors.FromFlatDataAndDimensions(up, c.e, c.f, c.h), tensors.FromFlatDataAndDimensions(down, c.e, c.h, c.f))
			return slices.Concat(out.Value().([][]float32)...)
		}
		grouped, direct := run(c.n, true), run(c.n, false)
		ref := moeReference(c, x, experts, weights, gate, up, down)
		for i := range ref {
			if grouped[i] != direct[i] {
				t.Fatalf("%+v: element %d: grouped %v, direct %v (bits differ)", c, i, grouped[i], direct[i])
			}
			if math.Abs(float64(grouped[i])-ref[i]) > 1e-5*(1+math.Abs(ref[i])) {
				t.Fatalf("%+v: element %d = %v, reference %v", c, i, grouped[i], ref[i])
			}
		}
		half := c.n/2 + 1
		for i, v := range run(half, true) {
			if v != grouped[i] {
				t.Fatalf("%+v: element %d = %v with %d tokens, %v with %d", c, i, v, half, grouped[i], c.n)
			}
		}
	}
}

// testMoE is a SwiGLU MoE over stacked weights gate, up [E, F, H] and
// down [E, H, F], its direct layout slicing them per expert.
func testMoE(e int, gate, up, down *Node) MoE {
	pick := func(s *Node, i int) *Node {
		return Reshape(Slice(s, AxisRange(i, i+1)), s.Shape().Dim(1), s.Shape().Dim(2))
	}
	return MoE{Experts: e, Unit: SwiGLU,
		Expert: func(i int, rows *Node) *Node {
			return Linear(SwiGLU(Linear(rows, pick(gate, i), nil), Linear(rows, pick(up, i), nil)), pick(down, i), nil)
		},
		Stacked: func() (*Node, *Node, *Node) { return gate, up, down }}
}

// moeReference is the MoE output in float64: Σ_k w·down(silu(gate·x)·(up·x)).
func moeReference(c moeCase, x []float32, experts []int32, weights, gate, up, down []float32) []float64 {
	out := make([]float64, c.n*c.h)
	for n := range c.n {
		for j := range c.k {
			e := int(experts[n*c.k+j])
			act := make([]float64, c.f)
			for f := range c.f {
				var g, u float64
				for h := range c.h {
					g += float64(gate[(e*c.f+f)*c.h+h]) * float64(x[n*c.h+h])
					u += float64(up[(e*c.f+f)*c.h+h]) * float64(x[n*c.h+h])
				}
				act[f] = g / (1 + math.Exp(-g)) * u
			}
			for h := range c.h {
				var s float64
				for f := range c.f {
					s += float64(down[(e*c.h+h)*c.f+f]) * act[f]
				}
				out[n*c.h+h] += float64(weights[n*c.k+j]) * s
			}
		}
	}
	return out
}

func TestTileRows(t *testing.T) {
	for _, c := range []struct{ s, e, want int }{{8, 128, 2}, {32768, 128, 128}, {32768, 64, 256}, {8192, 8, 256}, {4096, 64, 64}, {100, 8, 32}, {4, 4, 8}} {
		if got := tileRows(c.s, c.e); got != c.want {
			t.Errorf("tileRows(%d, %d) = %d, want %d", c.s, c.e, got, c.want)
		}
	}
}
