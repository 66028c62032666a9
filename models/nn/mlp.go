package nn

import (
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

// SwiGLU is the Llama MLP: down(silu(gate(x)) ⊙ up(x)).
//
//	x [..., H], gate/up [F, H], down [H, F] → [..., H]
func SwiGLU(x, gate, up, down *Node) *Node {
	g := Linear(x, gate, nil)
	u := Linear(x, up, nil)
	return Linear(Mul(Mul(g, Logistic(g)), u), down, nil)
}
