package gocpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// opCase is one graph run on both backends with the same inputs.
type opCase struct {
	name   string
	inputs []shapes.Shape
	fn     func(in []*Node) *Node
	// tol is the relative tolerance on floats (0: bit-identical).
	tol float64
}

var f32 = dtypes.Float32

func s(dims ...int) shapes.Shape { return shapes.Make(f32, dims...) }

var opCases = []opCase{
	{"add-broadcast", []shapes.Shape{s(3, 4, 5), s(3, 1, 5)}, func(in []*Node) *Node { return Add(in[0], in[1]) }, 0},
	{"row-scale", []shapes.Shape{s(4, 5, 6), s(4, 5, 1)}, func(in []*Node) *Node { return Mul(in[0], in[1]) }, 0},
	{"bias-big", []shapes.Shape{s(300, 256), s(1, 256)}, func(in []*Node) *Node { return Sub(in[1], in[0]) }, 0},
	{"scalar-big", []shapes.Shape{s(70000)}, func(in []*Node) *Node { return Mul(Scalar(in[0].Graph(), f32, 3), in[0]) }, 0},
	{"mul-scalar", []shapes.Shape{s(7, 9)}, func(in []*Node) *Node { return Mul(in[0], Scalar(in[0].Graph(), f32, 1.5)) }, 0},
	{"sub-div-max-min", []shapes.Shape{s(6, 8), s(6, 8)}, func(in []*Node) *Node {
		return Add(Div(Sub(in[0], in[1]), Add(Abs(in[1]), Scalar(in[0].Graph(), f32, 1))), Sub(Max(in[0], in[1]), Min(in[0], in[1])))
	}, 0},
	{"unary", []shapes.Shape{s(5, 33)}, func(in []*Node) *Node {
		x := in[0]
		return Add(Add(Add(Exp(x), Cos(x)), Add(Sin(x), Tanh(x))), Add(Add(Logistic(x), Neg(x)), Rsqrt(Add(Abs(x), Scalar(x.Graph(), f32, 0.5)))))
	}, 2e-7},
	{"log-sqrt", []shapes.Shape{s(4, 17)}, func(in []*Node) *Node {
		x := Add(Abs(in[0]), Scalar(in[0].Graph(), f32, 0.1))
		return Add(Log(x), Sqrt(x))
	}, 2e-7},
	{"softmax", []shapes.Shape{s(3, 4, 50)}, func(in []*Node) *Node { return Softmax(in[0], -1) }, 1e-6},
	{"reduce", []shapes.Shape{s(3, 4, 5)}, func(in []*Node) *Node {
		return Add(ReduceSum(in[0], 1), ReduceMax(in[0], 1))
	}, 1e-6},
	{"reduce-all-lead", []shapes.Shape{s(3, 4, 5)}, func(in []*Node) *Node {
		return Add(ReduceAllSum(in[0]), ReduceSum(ReduceMax(in[0], 0), 1))
	}, 1e-6},
	{"reduce-big-rows", []shapes.Shape{s(300, 3, 200)}, func(in []*Node) *Node {
		return Add(ReduceSum(in[0], 1, 2), ReduceMax(in[0], 2, 1))
	}, 1e-6},
	{"transpose", []shapes.Shape{s(2, 3, 4, 5)}, func(in []*Node) *Node { return TransposeAllDims(in[0], 2, 0, 3, 1) }, 0},
	{"slice-concat", []shapes.Shape{s(4, 6), s(4, 3)}, func(in []*Node) *Node {
		return Concatenate([]*Node{Slice(in[0], AxisRange(), AxisRange(2, 6)), in[1]}, 1)
	}, 0},
	{"slice-strided", []shapes.Shape{s(9, 10)}, func(in []*Node) *Node {
		return Slice(in[0], AxisRange(1, 9).Stride(3), AxisRange(0, 10).Stride(2))
	}, 0},
	{"broadcast", []shapes.Shape{s(3, 1)}, func(in []*Node) *Node { return BroadcastToDims(Reshape(in[0], 1, 3, 1), 2, 3, 4) }, 0},
	{"iota-where-compare", []shapes.Shape{s(5, 6)}, func(in []*Node) *Node {
		g := in[0].Graph()
		i := Iota(g, shapes.Make(dtypes.Int32, 5, 6), 1)
		j := Iota(g, shapes.Make(dtypes.Int32, 5, 6), 0)
		m := LogicalAnd(LessOrEqual(i, j), NotEqual(i, Scalar(g, dtypes.Int32, 2)))
		return Where(m, in[0], ConvertDType(Add(i, j), f32))
	}, 0},
	{"where-scalar-sides", []shapes.Shape{s(4, 5)}, func(in []*Node) *Node {
		g := in[0].Graph()
		m := GreaterThan(in[0], ZerosLike(in[0]))
		a := Where(m, in[0], Scalar(g, f32, -7))
		b := Where(m, Scalar(g, f32, 3), in[0])
		c := Where(Const(g, false), in[0], Neg(in[0]))
		return Add(Add(a, b), c)
	}, 0},
	{"matmul", []shapes.Shape{s(7, 13), s(13, 21)}, func(in []*Node) *Node { return Dot(in[0], in[1]) }, 1e-5},
	{"matmul-transposed", []shapes.Shape{s(2, 7, 13), s(21, 13)}, func(in []*Node) *Node {
		return Einsum("btk,nk->btn", in[0], in[1])
	}, 1e-5},
	{"batched-attention", []shapes.Shape{s(2, 3, 5, 8), s(2, 3, 6, 8)}, func(in []*Node) *Node {
		return Einsum("bhqd,bhkd->bhqk", in[0], in[1])
	}, 1e-5},
	{"batched-permuted", []shapes.Shape{s(2, 6, 3, 8), s(2, 3, 5, 6)}, func(in []*Node) *Node {
		return Einsum("bkhd,bhqk->bhqd", in[0], in[1])
	}, 1e-5},
	{"gqa-scores-and-values", []shapes.Shape{s(2, 3, 2, 3, 8), s(2, 5, 2, 8), s(2, 5, 2, 8)}, func(in []*Node) *Node {
		// attention's products (models/nn.attend): q [B,T,K,G,D], k and v
		// [B,S,K,D] read in place per (B, K).
		scores := DotGeneral(in[0], []int{4}, []int{0, 2}, in[1], []int{3}, []int{0, 2}) // [B,K,T,G,S]
		out := DotGeneral(scores, []int{4}, []int{0, 1}, in[2], []int{1}, []int{0, 2})   // [B,K,T,G,D]
		return Add(ReduceSum(scores, -1), ReduceSum(out, -1))
	}, 1e-5},
	{"gqa-decode-cache-major", []shapes.Shape{s(1, 2, 40, 64), s(1, 1, 2, 4, 64), s(1, 2, 40, 64)}, func(in []*Node) *Node {
		// decode's products as the engine's graph has them: k and v caches
		// [B,K,S,D] times one step's q [B,T,K,G,D], few columns (the scores,
		// gemm.MatMulFewCols) and few rows (the values, gemm.MatMulInPlaceB).
		scores := DotGeneral(in[0], []int{3}, []int{0, 1}, in[1], []int{4}, []int{0, 2}) // [B,K,S,T,G]
		probs := Transpose(Transpose(scores, 2, 3), 3, 4)                                // [B,K,T,G,S]
		out := DotGeneral(probs, []int{4}, []int{0, 1}, in[2], []int{2}, []int{0, 1})    // [B,K,T,G,D]
		return Add(ReduceSum(scores, 2), ReduceSum(out, -1))
	}, 1e-5},
	{"gqa-decode-strided", []shapes.Shape{s(2, 37, 2, 32), s(2, 1, 2, 7, 32), s(2, 37, 2, 32)}, func(in []*Node) *Node {
		// caches [B,S,K,D] read per (B, K) at a stride; a group of 7.
		scores := DotGeneral(in[0], []int{3}, []int{0, 2}, in[1], []int{4}, []int{0, 2}) // [B,K,S,T,G]
		probs := Transpose(Transpose(scores, 2, 3), 3, 4)                                // [B,K,T,G,S]
		out := DotGeneral(probs, []int{4}, []int{0, 1}, in[2], []int{1}, []int{0, 2})    // [B,K,T,G,D]
		return Add(ReduceSum(scores, 2), ReduceSum(out, -1))
	}, 1e-5},
	{"gqa-float64", []shapes.Shape{s(2, 3, 2, 3, 8), s(2, 5, 2, 8)}, func(in []*Node) *Node {
		q, k := ConvertDType(in[0], dtypes.Float64), ConvertDType(in[1], dtypes.Float64)
		return ConvertDType(DotGeneral(q, []int{4}, []int{0, 2}, k, []int{3}, []int{0, 2}), f32)
	}, 1e-6},
	{"argmax", []shapes.Shape{s(4, 9)}, func(in []*Node) *Node { return ConvertDType(ArgMax(in[0], 1), f32) }, 0},
	{"gather-rows", []shapes.Shape{s(10, 4)}, func(in []*Node) *Node {
		idx := Const(in[0].Graph(), [][]int32{{3}, {0}, {9}, {3}, {12}})
		return Gather(in[0], idx)
	}, 0},
	{"gather-pairs", []shapes.Shape{s(3, 7)}, func(in []*Node) *Node {
		idx := Const(in[0].Graph(), [][]int32{{0, 1}, {2, 6}, {1, 0}, {2, 6}})
		return Gather(in[0], idx)
	}, 0},
	{"float64", []shapes.Shape{s(3, 5)}, func(in []*Node) *Node {
		x := ConvertDType(in[0], dtypes.Float64)
		return ConvertDType(Sub(x, Log(ReduceAndKeep(Exp(x), ReduceSum, -1))), f32)
	}, 1e-7},
}

func TestOpsMatchSimplego(t *testing.T) {
	ref, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range opCases {
		t.Run(c.name, func(t *testing.T) {
			flats := make([][]float32, len(c.inputs))
			for i, sh := range c.inputs {
				flats[i] = make([]float32, sh.Size())
				for j := range flats[i] {
					flats[i][j] = float32(rng.NormFloat64())
				}
			}
			want := run(t, ref, c, flats)
			got := run(t, ours, c, flats)
			compare(t, got, want, c.tol)
		})
	}
}

func run(t *testing.T, b backends.Backend, c opCase, flats [][]float32) []float32 {
	t.Helper()
	args := make([]any, len(flats))
	for i, f := range flats {
		args[i] = tensors.FromFlatDataAndDimensions(f, c.inputs[i].Dimensions...)
	}
	exec, err := NewExecAny(b, func(in []*Node) *Node { return c.fn(in) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(args...)
	if err != nil {
		t.Fatalf("%s: %v", b.Name(), err)
	}
	v, err := tensors.CopyFlatData[float32](out[0])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func compare(t *testing.T, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if g == w || (tol > 0 && math.Abs(g-w) <= tol*max(1, math.Abs(w))) {
			continue
		}
		t.Fatalf("value %d: %v, want %v (tolerance %g)", i, g, w, tol)
	}
}
