package models

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/nn"
)

// Graph blocks used by phi.go, phi3.go, gemma2.go and gemma3.go that the
// llama family does not need.

// vecLast reshapes a vector [H] to [1, …, 1, H] of the given rank.
func vecLast(v *Node, rank int) *Node {
	return Reshape(v, append(onesDims(rank-1), v.Shape().Dim(0))...)
}

// layerNorm is torch.nn.LayerNorm over the last axis with weight and bias,
// statistics in float32 (biased variance).
//
//	x [..., H], w, b [H] → [..., H]
func layerNorm(x, w, b *Node, eps float64) *Node {
	dtype := x.DType()
	xf := ConvertDType(x, dtypes.Float32)
	mean := ReduceAndKeep(xf, ReduceMean, -1)
	centred := Sub(xf, mean)
	variance := ReduceAndKeep(Square(centred), ReduceMean, -1)
	y := Mul(centred, Rsqrt(AddScalar(variance, eps)))
	y = Add(Mul(y, vecLast(ConvertDType(w, dtypes.Float32), x.Rank())), vecLast(ConvertDType(b, dtypes.Float32), x.Rank()))
	return ConvertDType(y, dtype)
}

// gemmaRMSNorm is Gemma's RMSNorm: x/rms(x) · (1 + w), all in float32,
// then cast back (Gemma2RMSNorm / Gemma3RMSNorm).
//
//	x [..., H], w [H] → [..., H]
func gemmaRMSNorm(x, w *Node, eps float64) *Node {
	dtype := x.DType()
	xf := ConvertDType(x, dtypes.Float32)
	y := Mul(xf, Rsqrt(AddScalar(ReduceAndKeep(Square(xf), ReduceMean, -1), eps)))
	y = Mul(y, vecLast(AddScalar(ConvertDType(w, dtypes.Float32), 1), x.Rank()))
	return ConvertDType(y, dtype)
}

// geluTanh is the tanh approximation of GELU (gelu_new,
// gelu_pytorch_tanh): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func geluTanh(x *Node) *Node {
	inner := MulScalar(Add(x, MulScalar(Mul(Square(x), x), 0.044715)), math.Sqrt(2/math.Pi))
	return Mul(MulScalar(x, 0.5), AddScalar(Tanh(inner), 1))
}

// softcap is cap·tanh(x/cap); cap 0 leaves x as it is.
func softcap(x *Node, c float64) *Node {
	if c == 0 {
		return x
	}
	return MulScalar(Tanh(MulScalar(x, 1/c)), c)
}

// partialRoPE rotates the first rot dims of each head (rotate_half
// convention) and passes the rest through (Phi's partial_rotary_factor).
//
//	x [B, T, N, D], positions [B, T], invFreq [rot/2] → [B, T, N, D]
func partialRoPE(x, positions *Node, invFreq []float64, rot int) *Node {
	d := x.Shape().Dim(3)
	if rot == d {
		return nn.ApplyRoPE(x, positions, invFreq)
	}
	head := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(0, rot))
	pass := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(rot, d))
	return Concatenate([]*Node{nn.ApplyRoPE(head, positions, invFreq), pass}, -1)
}

// attention is nn.Attention with an explicit score scale and optional
// soft-capping of the scores (Gemma 2): softmax(cap·tanh(q·kᵀ·scale/cap) +
// mask)·v with grouped-query heads, scores and softmax in float32.
//
//	q [B, T, N, D], k, v [B, S, K, D], mask [B, T, S] bool → [B, T, N·D]
func attention(q, k, v, mask *Node, scale, capValue float64) *Node {
	b, t, n, d := q.Shape().Dim(0), q.Shape().Dim(1), q.Shape().Dim(2), q.Shape().Dim(3)
	s, kv := k.Shape().Dim(1), k.Shape().Dim(2)
	g := n / kv
	dtype := q.DType()
	q5 := Reshape(q, b, t, kv, g, d)
	scores := DotGeneral(q5, []int{4}, []int{0, 2}, k, []int{3}, []int{0, 2}) // [B, K, T, G, S]
	scores = softcap(MulScalar(ConvertDType(scores, dtypes.Float32), scale), capValue)
	m := BroadcastToDims(Reshape(mask, b, 1, t, 1, s), b, kv, t, g, s)
	scores = Where(m, scores, BroadcastToDims(Infinity(q.Graph(), dtypes.Float32, -1), b, kv, t, g, s))
	e := Exp(Sub(scores, ReduceAndKeep(scores, ReduceMax, -1)))
	probs := ConvertDType(Div(e, ReduceAndKeep(e, ReduceSum, -1)), dtype)
	out := DotGeneral(probs, []int{4}, []int{0, 1}, v, []int{1}, []int{0, 2}) // [B, K, T, G, D]
	return Reshape(TransposeAllDims(out, 0, 2, 1, 3, 4), b, t, n*d)
}

// embed gathers token embeddings from checkpoint tensor name.
//
//	tokens [B, T] → [B, T, H]
func embed(ctx *context.Context, tokens *Node, name string) *Node {
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	return Gather(Param(ctx, tokens.Graph(), name), Reshape(tokens, b, t, 1))
}
