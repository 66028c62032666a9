package nn

import (
	"math"
	"slices"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// Linear computes x·Wᵀ (+ bias) with the weight in Hugging Face layout
// [out, in]. The contraction is over x's last axis and w's axis 1: simplego's
// DotGeneral reads that layout without a transposing copy on its small-matrix
// path, and its large-matrix path re-blocks any layout anyway. (Splitting W
// into a batch axis to parallelise the small path was measured slower: the
// Reshape of a non-donated weight copies it on every call.)
//
//	x [..., in], w [out, in], bias [out] or nil → [..., out]
func Linear(x, w, bias *Node) *Node {
	if w.Rank() != 2 || w.Shape().Dim(1) != x.Shape().Dim(-1) {
		panicf("Linear: weight %s does not match input %s (want [out, %d])", w.Shape(), x.Shape(), x.Shape().Dim(-1))
	}
	y := DotGeneral(x, []int{x.Rank() - 1}, nil, w, []int{1}, nil)
	if bias != nil {
		y = Add(y, broadcastLast(ConvertDType(bias, y.DType()), y.Rank()))
	}
	return y
}

// LinearT is Linear with the weight stored transposed, [in, out] (how
// models keeps linear weights on XLA). x's leading axes are flattened for
// the product: XLA's CPU compiler picks a slower kernel for the rank-3 form
// at a few rows.
//
//	x [..., in], wt [in, out], bias [out] or nil → [..., out]
func LinearT(x, wt, bias *Node) *Node {
	if wt.Rank() != 2 || wt.Shape().Dim(0) != x.Shape().Dim(-1) {
		panicf("LinearT: weight %s does not match input %s (want [%d, out])", wt.Shape(), x.Shape(), x.Shape().Dim(-1))
	}
	dims := x.Shape().Dimensions
	flat := Reshape(x, -1, dims[len(dims)-1])
	y := DotGeneral(flat, []int{1}, nil, wt, []int{0}, nil)
	y = Reshape(y, append(slices.Clone(dims[:len(dims)-1]), wt.Shape().Dim(1))...)
	if bias != nil {
		y = Add(y, broadcastLast(ConvertDType(bias, y.DType()), y.Rank()))
	}
	return y
}

// SwiGLU is the gated unit of the Llama MLP: silu(gate) ⊙ up.
//
//	gate, up [..., F] → [..., F]
func SwiGLU(gate, up *Node) *Node {
	return Mul(Mul(gate, Logistic(gate)), up)
}

// GeGLU is the gated unit of the Gemma MLP: gelu_tanh(gate) ⊙ up.
//
//	gate, up [..., F] → [..., F]
func GeGLU(gate, up *Node) *Node {
	return Mul(GELUTanh(gate), up)
}

// GELUTanh is the tanh approximation of GELU (gelu_new,
// gelu_pytorch_tanh): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func GELUTanh(x *Node) *Node {
	inner := MulScalar(Add(x, MulScalar(Mul(Square(x), x), 0.044715)), math.Sqrt(2/math.Pi))
	return Mul(MulScalar(x, 0.5), AddScalar(Tanh(inner), 1))
}
