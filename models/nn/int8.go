package nn

import (
	"math"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// LLM.int8 (bitsandbytes' MatMul8bitLt at inference, as its CPU kernels
// compute it) for a weight held as int8 codes CB [out, in] with one
// absmax scale SCB [out] per output row. Each row of activations is
// rounded to float16 and quantized to int8 with its own absmax scale; with
// a threshold t > 0, an activation |x| ≥ t is an outlier: it is left out
// of its row's scale and codes, and every input column holding one (in any
// row of the same sequence) is multiplied apart in float32 against the
// dequantized weight (CB·SCB/127), its int8 codes zeroed. The int8
// products are summed exactly (as int32) and dequantized as
// int8_mm_dequant does: acc·(rowScale·SCB)·(1/127²), then the bias, then
// the outlier product.

// int8ExactK is the longest contraction whose float32 sum of int8·int8
// products is exact in any order: 1040·127² < 2^24.
const int8ExactK = 1040

// int8MMScale is bitsandbytes' 6.200124e-05 (1/127²) as int8_mm_dequant
// multiplies by it, a float32.
const int8MMScale = float32(6.200124e-05)

// int8Recip is bitsandbytes' 1/127 (int8_vectorwise_dequant), a float32.
const int8Recip = float32(7.874015718698502e-3)

// Int8Linear is LLM.int8's x·Wᵀ (+ bias) for W given as its int8 codes cb
// (integer values in any float dtype, [out, in]) and row scales scb [out].
// The outlier columns are found over each sequence, as bitsandbytes finds
// them over the rows of one forward call of one request: x [S, R, …, in]
// is S sequences of R·… rows, x [N, in] N sequences of one row (a decode
// step); valid [S, R] (nil: all) marks the rows that count (padding does
// not). threshold 0 splits off nothing. Computed in float32, returned in
// x's dtype. It is QuantizeInt8Input(x, threshold, valid).Linear(cb, scb,
// bias).
//
//	x [..., in], cb [out, in], scb [out], bias [out] or nil → [..., out]
func Int8Linear(x, cb, scb, bias *Node, threshold float64, valid *Node) *Node {
	return QuantizeInt8Input(x, threshold, valid).Linear(cb, scb, bias)
}

// Int8Input is an input of LLM.int8 products quantized once
// (QuantizeInt8Input): the products of one input by several weights (a
// layer's q, k and v projections) share its float16 rounding, row
// quantization and outlier columns, which cost more than a product.
type Int8Input struct {
	// Integer: the products take their integer form, DotGeneral of the
	// codes and the weight converted to int32 (exact; a backend with int8
	// kernels runs it on them: gocpu's DotInt8), where they otherwise
	// compute the same integers in float32 (int8Dot).
	Integer               bool
	dims                  []int // x's dimensions
	dtype                 dtypes.DType
	codes, rowScale, cols *Node // [S, R, in], [S, R, 1], [S, 1, in] or nil
	outliers              *Node // x's outlier columns, the rest 0, [S, R, in], or nil
}

// QuantizeInt8Input quantizes x for Int8Input.Linear (see Int8Linear).
//
//	x [..., in], valid [S, R] or nil
func QuantizeInt8Input(x *Node, threshold float64, valid *Node) *Int8Input {
	dims := x.Shape().Dimensions
	xf := Reshape(ConvertDType(x, dtypes.Float32), dims[0], -1, dims[len(dims)-1]) // [S, R, in]
	if valid != nil {
		valid = Reshape(valid, dims[0], -1, 1) // [S, R, 1]
	}
	q := &Int8Input{dims: slices.Clone(dims), dtype: x.DType()}
	q.codes, q.rowScale, q.cols = QuantizeRowsInt8(xf, threshold, valid)
	if q.cols != nil {
		q.outliers = Where(BroadcastToDims(q.cols, xf.Shape().Dimensions...), xf, ZerosLike(xf))
	}
	return q
}

// Linear is Int8Linear of the quantized input by cb, scb and bias.
//
//	cb [out, in], scb [out], bias [out] or nil → [..., out]
func (q *Int8Input) Linear(cb, scb, bias *Node) *Node {
	if in := q.dims[len(q.dims)-1]; cb.Rank() != 2 || cb.Shape().Dim(1) != in {
		panicf("Int8Linear: weight %s does not match input %v (want [out, %d])", cb.Shape(), q.dims, in)
	}
	out := cb.Shape().Dim(0)
	var acc *Node // [S, R, out], exact integers
	if q.Integer {
		acc = ConvertDType(DotGeneral(ConvertDType(q.codes, dtypes.Int32), []int{2}, nil, ConvertDType(cb, dtypes.Int32), []int{1}, nil), dtypes.Float32)
	}
	cb = ConvertDType(cb, dtypes.Float32)
	scb = Reshape(ConvertDType(scb, dtypes.Float32), 1, 1, out)
	if acc == nil {
		acc = int8Dot(q.codes, cb)
	}
	y := MulScalar(Mul(acc, Mul(q.rowScale, scb)), float64(int8MMScale))
	if bias != nil {
		y = Add(y, Reshape(ConvertDType(bias, dtypes.Float32), 1, 1, out))
	}
	if q.outliers != nil {
		yo := DotGeneral(q.outliers, []int{2}, nil, cb, []int{1}, nil) // [S, R, out]
		y = Add(y, MulScalar(Mul(yo, scb), float64(int8Recip)))
	}
	y = Reshape(y, append(slices.Clone(q.dims[:len(q.dims)-1]), out)...)
	return ConvertDType(y, q.dtype)
}

// QuantizeRowsInt8 is bitsandbytes' int8_vectorwise_quant of x rounded to
// float16, per row of each sequence: the codes round(x·((1/absmax)·127)) (as
// float32 integers), the row absmax, and with threshold > 0 the outlier
// columns (a bool mask; nil without a threshold): outliers |x| ≥ threshold
// are zeroed before the absmax is taken, and the codes of every outlier
// column are zeroed in all rows. A row of zeros gets codes 0. Rows where
// valid (nil: all) is false add no outlier column.
//
//	x [S, R, in] float32, valid [S, R, 1] bool or nil → codes [S, R, in], absmax [S, R, 1], cols [S, 1, in]
func QuantizeRowsInt8(x *Node, threshold float64, valid *Node) (codes, absmax, cols *Node) {
	x16 := RoundToFloat16(x)
	zero := ZerosLike(x16)
	if threshold > 0 {
		outlier := GreaterOrEqual(Abs(x16), Scalar(x.Graph(), dtypes.Float32, threshold))
		x16 = Where(outlier, zero, x16)
		counted := outlier
		if valid != nil {
			counted = LogicalAnd(outlier, BroadcastToDims(valid, outlier.Shape().Dimensions...))
		}
		cols = ReduceAndKeep(ConvertDType(counted, dtypes.Float32), ReduceMax, 1) // [S, 1, in]
		cols = GreaterThan(cols, ZerosLike(cols))
	}
	absmax = ReduceAndKeep(Abs(x16), ReduceMax, -1) // [S, R, 1]
	// torch's 127.0/absmax is absmax.reciprocal()·127 (Tensor.__rtruediv__),
	// two roundings; +Inf for a zero row.
	scale := MulScalar(Div(OnesLike(absmax), absmax), 127)
	codes = Round(Mul(x16, scale))
	codes = Where(BroadcastToDims(Equal(absmax, ZerosLike(absmax)), codes.Shape().Dimensions...), zero, codes)
	if cols != nil {
		codes = Where(BroadcastToDims(cols, codes.Shape().Dimensions...), zero, codes)
	}
	return codes, absmax, cols
}

// int8SplitK is the longest contraction int8DotSplit sums exactly: its
// terms are at most 8·127, and 8·127·16512 < 2^24.
const int8SplitK = 16512

// int8Dot is Σ_k codes[s, r, k]·cb[o, k], exact: one float32 product
// where in ≤ int8ExactK, else int8DotSplit (two products in one, reading
// cb whole: a bf16 weight stays fused and packed on the pure-Go backend),
// beyond int8SplitK int8DotChunked.
//
//	codes [S, R, in], cb [out, in] → [S, R, out] float32
func int8Dot(codes, cb *Node) *Node {
	switch in := cb.Shape().Dim(1); {
	case in <= int8ExactK:
		return DotGeneral(codes, []int{2}, nil, cb, []int{1}, nil)
	case in <= int8SplitK:
		return int8DotSplit(codes, cb)
	}
	return int8DotChunked(codes, cb)
}

// int8DotSplit is int8Dot with each code split as 16·h + l, h = round(c/16)
// and l = c − 16·h both in [−8, 8]: h's and l's products (stacked as rows
// of one DotGeneral) are exact float32 sums of terms of at most 8·127,
// combined as 16·Σh + Σl in int32 (|Σ| ≤ 127²·in < 2^31), then converted.
//
//	codes [S, R, in], cb [out, in] → [S, R, out] float32
func int8DotSplit(codes, cb *Node) *Node {
	s := codes.Shape().Dim(0)
	h := Round(DivScalar(codes, 16))
	l := Sub(codes, MulScalar(h, 16))
	p := DotGeneral(Concatenate([]*Node{h, l}, 0), []int{2}, nil, cb, []int{1}, nil) // [2S, R, out]
	p = ConvertDType(p, dtypes.Int32)
	acc := Add(MulScalar(Slice(p, AxisRange(0, s)), 16), Slice(p, AxisRange(s, 2*s)))
	return ConvertDType(acc, dtypes.Float32)
}

// int8DotChunked is int8Dot as the float32 products of chunks of at most
// int8ExactK inputs (each exact), converted to int32 and summed there.
//
//	codes [S, R, in], cb [out, in] → [S, R, out] float32
func int8DotChunked(codes, cb *Node) *Node {
	in, out := cb.Shape().Dim(1), cb.Shape().Dim(0)
	chunk := 1
	for c := int8ExactK; c > 1; c-- {
		if in%c == 0 {
			chunk = c
			break
		}
	}
	n := in / chunk
	s, r := codes.Shape().Dim(0), codes.Shape().Dim(1)
	lhs := Reshape(codes, s, r, n, chunk)
	rhs := Reshape(cb, out, n, chunk)
	parts := DotGeneral(lhs, []int{3}, []int{2}, rhs, []int{2}, []int{1}) // [n, S, R, out]
	return ConvertDType(ReduceSum(ConvertDType(parts, dtypes.Int32), 0), dtypes.Float32)
}

// RoundToFloat16 rounds float32 values to the nearest float16 value, ties
// to even (torch's Tensor.to(float16)), kept in float32: ±Inf beyond
// float16's range, subnormals on its 2^-24 grid. The quantum 2^(e−10) of
// |x|'s binade e (at least −14) is found from its logarithm and
// corrected by comparison, and x is rounded to it by adding and
// subtracting 1.5·2^(e+13), whose float32 quantum is that one.
//
//	x float32 [...] → [...]
func RoundToFloat16(x *Node) *Node {
	g := x.Graph()
	f := func(v float64) *Node { return Scalar(g, dtypes.Float32, v) }
	a := Abs(x)
	minExp := f(-14)
	e := Max(Floor(Div(Log(a), f(math.Ln2))), minExp)
	p := Pow(f(2), e)
	e = Where(LessThan(a, p), Sub(e, f(1)), e)
	e = Where(GreaterOrEqual(a, Mul(p, f(2))), Add(e, f(1)), e)
	e = Max(e, minExp)
	c := Mul(f(1.5), Pow(f(2), Add(e, f(13))))
	r := Sub(Add(x, c), c)
	inf := Where(LessThan(x, f(0)), f(math.Inf(-1)), f(math.Inf(1)))
	return Where(GreaterOrEqual(a, f(65520)), inf, r)
}
