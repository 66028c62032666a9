package nn

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// RMSNorm normalizes x over its last axis and scales by weight, as Hugging
// Face's LlamaRMSNorm: the statistics are computed in float32 and the result
// is cast back to x's dtype before the weight multiplication.
//
//	x [..., H], weight [H] → [..., H]
func RMSNorm(x, weight *Node, eps float64) *Node {
	dtype := x.DType()
	h := x.Shape().Dim(-1)
	if weight.Rank() != 1 || weight.Shape().Dim(0) != h {
		panicf("RMSNorm: weight shape %s does not match x %s", weight.Shape(), x.Shape())
	}
	xf := ConvertDType(x, dtypes.Float32)
	variance := ReduceAndKeep(Square(xf), ReduceMean, -1)
	normed := Mul(xf, Rsqrt(AddScalar(variance, eps)))
	normed = ConvertDType(normed, dtype)
	return Mul(normed, broadcastLast(ConvertDType(weight, dtype), x.Rank()))
}

// OffsetRMSNorm is Gemma's RMSNorm: x/rms(x) · (1 + weight), all in
// float32, then cast back (Gemma2RMSNorm / Gemma3RMSNorm).
//
//	x [..., H], weight [H] → [..., H]
func OffsetRMSNorm(x, weight *Node, eps float64) *Node {
	dtype := x.DType()
	xf := ConvertDType(x, dtypes.Float32)
	y := Mul(xf, Rsqrt(AddScalar(ReduceAndKeep(Square(xf), ReduceMean, -1), eps)))
	y = Mul(y, broadcastLast(AddScalar(ConvertDType(weight, dtypes.Float32), 1), x.Rank()))
	return ConvertDType(y, dtype)
}

// LayerNorm is torch.nn.LayerNorm over the last axis with weight and bias,
// statistics in float32 (biased variance).
//
//	x [..., H], weight, bias [H] → [..., H]
func LayerNorm(x, weight, bias *Node, eps float64) *Node {
	dtype := x.DType()
	xf := ConvertDType(x, dtypes.Float32)
	mean := ReduceAndKeep(xf, ReduceMean, -1)
	centred := Sub(xf, mean)
	variance := ReduceAndKeep(Square(centred), ReduceMean, -1)
	y := Mul(centred, Rsqrt(AddScalar(variance, eps)))
	y = Add(Mul(y, broadcastLast(ConvertDType(weight, dtypes.Float32), x.Rank())),
		broadcastLast(ConvertDType(bias, dtypes.Float32), x.Rank()))
	return ConvertDType(y, dtype)
}

// broadcastLast reshapes a vector [H] to [1, …, 1, H] of the given rank, so
// that it combines with a rank-`rank` tensor (binary ops broadcast only
// between equal ranks).
func broadcastLast(v *Node, rank int) *Node {
	dims := make([]int, rank)
	for i := range dims {
		dims[i] = 1
	}
	dims[rank-1] = v.Shape().Dim(0)
	return Reshape(v, dims...)
}
