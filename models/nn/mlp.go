package nn

import (
	"runtime"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// Linear computes x·Wᵀ (+ bias) with the weight in Hugging Face layout
// [out, in]. The contraction is over x's last axis and w's axis 1, which is
// the layout simplego's DotGeneral consumes without a transposing copy.
//
// On the pure-Go backend a large weight is split along out into P shards
// (P = GOMAXPROCS, when it divides out) that become DotGeneral's batch
// axis: the reshape of W is free, and simplego's small-matrix path (see
// engine's backend options) parallelises over that axis without copying W.
// Each output element is the same dot product either way.
//
//	x [..., in], w [out, in], bias [out] or nil → [..., out]
func Linear(x, w, bias *Node) *Node {
	if w.Rank() != 2 || w.Shape().Dim(1) != x.Shape().Dim(-1) {
		panicf("Linear: weight %s does not match input %s (want [out, %d])", w.Shape(), x.Shape(), x.Shape().Dim(-1))
	}
	var y *Node
	if p := linearShards(x, w); p > 1 {
		y = shardedLinear(x, w, p)
	} else {
		y = DotGeneral(x, []int{x.Rank() - 1}, nil, w, []int{1}, nil)
	}
	if bias != nil {
		y = Add(y, broadcastLast(ConvertDType(bias, y.DType()), y.Rank()))
	}
	return y
}

// LinearSharding enables the sharded Linear on the pure-Go backend.
var LinearSharding = true

// linearShards picks the number of shards for Linear (1 = plain).
func linearShards(x, w *Node) int {
	if !LinearSharding || x.Graph().Backend().String() != "go" {
		return 1
	}
	out, in := w.Shape().Dim(0), w.Shape().Dim(1)
	if out*in < 1<<18 {
		return 1
	}
	for p := runtime.GOMAXPROCS(0); p > 1; p-- {
		if out%p == 0 {
			return p
		}
	}
	return 1
}

// shardedLinear is x·Wᵀ with W viewed as [P, out/P, in] and x broadcast to
// [P, N, in]: out [P, N, out/P] → [N, P, out/P] → [..., out].
func shardedLinear(x, w *Node, p int) *Node {
	dims := x.Shape().Dimensions
	in, out := w.Shape().Dim(1), w.Shape().Dim(0)
	n := x.Shape().Size() / in
	xs := BroadcastToDims(Reshape(x, 1, n, in), p, n, in)
	ws := Reshape(w, p, out/p, in)
	y := DotGeneral(xs, []int{2}, []int{0}, ws, []int{2}, []int{0}) // [P, N, out/P]
	y = TransposeAllDims(y, 1, 0, 2)
	outDims := append(append([]int{}, dims[:len(dims)-1]...), out)
	return Reshape(y, outDims...)
}

// SwiGLU is the Llama MLP: down(silu(gate(x)) ⊙ up(x)).
//
//	x [..., H], gate/up [F, H], down [H, F] → [..., H]
func SwiGLU(x, gate, up, down *Node) *Node {
	g := Linear(x, gate, nil)
	u := Linear(x, up, nil)
	return Linear(Mul(Mul(g, Logistic(g)), u), down, nil)
}
