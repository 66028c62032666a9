package gocpu

import (
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/shapeinference"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/goeval/goeval/internal/vmath"
)

// Element-wise ops. float32 exp and logistic run on internal/vmath's
// vector kernels (≤ 1 and ≤ 2 ulp); other floats are computed in float64
// and rounded once (correctly rounded or within an ulp).

type number interface {
	~int32 | ~int64 | ~float32 | ~float64
}

// unaryFloat maps float64 → float64 for the float unary ops.
var unaryFloat = map[backends.OpType]func(float64) float64{
	backends.OpTypeExp:      math.Exp,
	backends.OpTypeExpm1:    math.Expm1,
	backends.OpTypeLog:      math.Log,
	backends.OpTypeLog1p:    math.Log1p,
	backends.OpTypeCos:      math.Cos,
	backends.OpTypeSin:      math.Sin,
	backends.OpTypeTanh:     math.Tanh,
	backends.OpTypeSqrt:     math.Sqrt,
	backends.OpTypeRsqrt:    func(x float64) float64 { return 1 / math.Sqrt(x) },
	backends.OpTypeLogistic: logistic,
	backends.OpTypeErf:      math.Erf,
	backends.OpTypeFloor:    math.Floor,
	backends.OpTypeCeil:     math.Ceil,
	backends.OpTypeRound:    math.RoundToEven,
}

func logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func init() {
	for op := range unaryFloat {
		register(op)
	}
	register(backends.OpTypeNeg, backends.OpTypeAbs, backends.OpTypeLogicalNot,
		backends.OpTypeAdd, backends.OpTypeSub, backends.OpTypeMul, backends.OpTypeDiv,
		backends.OpTypeMax, backends.OpTypeMin, backends.OpTypePow,
		backends.OpTypeLogicalAnd, backends.OpTypeLogicalOr,
		backends.OpTypeEqual, backends.OpTypeNotEqual, backends.OpTypeLessThan, backends.OpTypeLessOrEqual,
		backends.OpTypeGreaterThan, backends.OpTypeGreaterOrEqual, backends.OpTypeWhere, backends.OpTypeConvertDType)
}

// unary builds a node applying f to every element.
func (b *Builder) unary(op backends.OpType, x backends.Op) (backends.Op, error) {
	in, err := b.nodes2(op.String(), x)
	if err != nil {
		return nil, err
	}
	shape, err := shapeinference.UnaryOp(op, in[0].shape)
	if err != nil {
		return nil, err
	}
	var run runFunc
	if v := vector32[op]; v != nil && shape.DType == dtypes.Float32 {
		run = vectorRun(shape, v)
	} else if v := vector64[op]; v != nil && shape.DType == dtypes.Float64 {
		run = vectorRun(shape, v)
	} else if f, ok := unaryFloat[op]; ok {
		switch shape.DType {
		case dtypes.Float32:
			run = mapRun(shape, func(v float32) float32 { return float32(f(float64(v))) })
		case dtypes.Float64:
			run = mapRun(shape, f)
		}
	} else {
		run = unarySigned(op, shape)
	}
	if run == nil {
		return nil, errUnsupported(op.String(), shape.DType.String())
	}
	return b.newNode(op, shape, run, in[0]), nil
}

// vector32 are the float32 ops with vectorised kernels (internal/vmath:
// exp ≤ 1 ulp, logistic ≤ 2 ulp from the correctly rounded value), the
// softmax's and SwiGLU's hot loops, and loops of their own for the exact
// ops LLM.int8's row quantization runs over every activation (the values
// of the float64 forms; about 10× faster than a function call a value).
var vector32 = map[backends.OpType]func(dst, src []float32){
	backends.OpTypeExp:      vmath.Exp,
	backends.OpTypeLogistic: vmath.Logistic,
	backends.OpTypeAbs:      abs32,
	backends.OpTypeNeg:      neg32,
	backends.OpTypeRound:    round32,
	backends.OpTypeFloor:    floor32,
	backends.OpTypeCeil:     ceil32,
}

func abs32(dst, src []float32) {
	for i, v := range src {
		dst[i] = math.Float32frombits(math.Float32bits(v) &^ (1 << 31))
	}
}

func neg32(dst, src []float32) {
	for i, v := range src {
		dst[i] = -v
	}
}

// round32 rounds half to even (float32 values are exact in float64, and
// so are their roundings).
func round32(dst, src []float32) {
	for i, v := range src {
		dst[i] = float32(math.RoundToEven(float64(v)))
	}
}

func floor32(dst, src []float32) {
	for i, v := range src {
		dst[i] = float32(math.Floor(float64(v)))
	}
}

func ceil32(dst, src []float32) {
	for i, v := range src {
		dst[i] = float32(math.Ceil(float64(v)))
	}
}

// vector64 are the float64 ops with vectorised kernels: exp (≤ 1 ulp
// from math.Exp), the LM head's log-softmax, where math.Exp took 9 ns per
// element (10 % of a multiple-choice run).
var vector64 = map[backends.OpType]func(dst, src []float64){
	backends.OpTypeExp: vmath.Exp64,
}

// vectorRun applies v to input 0 in parallel chunks (each element's value
// depends only on its input: vmath's tails run the same kernel).
func vectorRun[T float32 | float64](shape shapes.Shape, v func(dst, src []T)) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		src := in[0].flat.([]T)
		out := x.alloc(shape, false)
		dst := out.flat.([]T)
		parallel(x, len(dst), func(lo, hi int) { v(dst[lo:hi], src[lo:hi]) })
		return out, nil
	}
}

func unarySigned(op backends.OpType, shape shapes.Shape) runFunc {
	switch op {
	case backends.OpTypeLogicalNot:
		if shape.DType == dtypes.Bool {
			return mapRun(shape, func(v bool) bool { return !v })
		}
	case backends.OpTypeNeg:
		return numberRun(shape, func(v float64) float64 { return -v }, func(v int64) int64 { return -v })
	case backends.OpTypeAbs:
		return numberRun(shape, math.Abs, func(v int64) int64 { return max(v, -v) })
	}
	return nil
}

// numberRun picks the float or int form of a numeric unary op for shape's dtype.
func numberRun(shape shapes.Shape, f func(float64) float64, i func(int64) int64) runFunc {
	switch shape.DType {
	case dtypes.Float32:
		return mapRun(shape, func(v float32) float32 { return float32(f(float64(v))) })
	case dtypes.Float64:
		return mapRun(shape, f)
	case dtypes.Int32:
		return mapRun(shape, func(v int32) int32 { return int32(i(int64(v))) })
	case dtypes.Int64:
		return mapRun(shape, i)
	}
	return nil
}

// mapRun applies f to each element of input 0, in parallel chunks.
func mapRun[T, U any](shape shapes.Shape, f func(T) U) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		src := in[0].flat.([]T)
		out := x.alloc(shape, false)
		dst := out.flat.([]U)
		parallel(x, len(dst), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dst[i] = f(src[i])
			}
		})
		return out, nil
	}
}

// Neg implements backends.Builder; the other unary ops follow.
func (b *Builder) Neg(x backends.Op) (backends.Op, error)   { return b.unary(backends.OpTypeNeg, x) }
func (b *Builder) Abs(x backends.Op) (backends.Op, error)   { return b.unary(backends.OpTypeAbs, x) }
func (b *Builder) Exp(x backends.Op) (backends.Op, error)   { return b.unary(backends.OpTypeExp, x) }
func (b *Builder) Expm1(x backends.Op) (backends.Op, error) { return b.unary(backends.OpTypeExpm1, x) }
func (b *Builder) Log(x backends.Op) (backends.Op, error)   { return b.unary(backends.OpTypeLog, x) }
func (b *Builder) Log1p(x backends.Op) (backends.Op, error) { return b.unary(backends.OpTypeLog1p, x) }
func (b *Builder) Cos(x backends.Op) (backends.Op, error)   { return b.unary(backends.OpTypeCos, x) }
func (b *Builder) Sin(x backends.Op) (backends.Op, error)   { return b.unary(backends.OpTypeSin, x) }
func (b *Builder) Tanh(x backends.Op) (backends.Op, error)  { return b.unary(backends.OpTypeTanh, x) }
func (b *Builder) Sqrt(x backends.Op) (backends.Op, error)  { return b.unary(backends.OpTypeSqrt, x) }
func (b *Builder) Rsqrt(x backends.Op) (backends.Op, error) { return b.unary(backends.OpTypeRsqrt, x) }
func (b *Builder) Logistic(x backends.Op) (backends.Op, error) {
	return b.unary(backends.OpTypeLogistic, x)
}
func (b *Builder) Erf(x backends.Op) (backends.Op, error)   { return b.unary(backends.OpTypeErf, x) }
func (b *Builder) Floor(x backends.Op) (backends.Op, error) { return b.unary(backends.OpTypeFloor, x) }
func (b *Builder) Ceil(x backends.Op) (backends.Op, error)  { return b.unary(backends.OpTypeCeil, x) }
func (b *Builder) Round(x backends.Op) (backends.Op, error) { return b.unary(backends.OpTypeRound, x) }
func (b *Builder) LogicalNot(x backends.Op) (backends.Op, error) {
	return b.unary(backends.OpTypeLogicalNot, x)
}

// ConvertDType implements backends.Builder.
func (b *Builder) ConvertDType(x backends.Op, dtype dtypes.DType) (backends.Op, error) {
	in, err := b.nodes2("ConvertDType", x)
	if err != nil {
		return nil, err
	}
	if err := checkDType(dtype); err != nil {
		return nil, err
	}
	if n := b.fuseInt8ToF32(in[0], dtype); n != nil {
		return n, nil
	}
	shape := in[0].shape.Clone()
	shape.DType = dtype
	run := convertRun(in[0].shape.DType, shape)
	return b.newNode(backends.OpTypeConvertDType, shape, run, in[0]), nil
}

// convertRun converts from dtype `from` to shape's dtype, as Go
// conversions do (bools are 0/1).
func convertRun(from dtypes.DType, shape shapes.Shape) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		src := toFloat64s(in[0].flat)
		out := x.alloc(shape, false)
		if convertDirect(x, out.flat, in[0].flat) {
			return out, nil
		}
		switch dst := out.flat.(type) {
		case []float32:
			if from == dtypes.BFloat16 { // a bf16 weight read otherwise than fused (bf16.go)
				widenBF16(x, dst, bits16(in[0].flat))
				return out, nil
			}
			if s, ok := in[0].flat.([]float64); ok && from == dtypes.Float64 {
				parallel(x, len(dst), func(lo, hi int) {
					for i := lo; i < hi; i++ {
						dst[i] = float32(s[i])
					}
				})
				return out, nil
			}
			fill(dst, src, func(v float64) float32 { return float32(v) })
		case []float64:
			if s, ok := in[0].flat.([]float32); ok { // the LM head's log-softmax: 3.5 → <1 ns per element
				parallel(x, len(dst), func(lo, hi int) {
					for i := lo; i < hi; i++ {
						dst[i] = float64(s[i])
					}
				})
				return out, nil
			}
			fill(dst, src, func(v float64) float64 { return v })
		case []int32:
			fill(dst, src, func(v float64) int32 { return int32(v) })
		case []int64:
			fill(dst, src, func(v float64) int64 { return int64(v) })
		case []bool:
			fill(dst, src, func(v float64) bool { return v != 0 })
		}
		return out, nil
	}
}

// convertDirect converts the pairs LLM.int8's graphs run over every
// activation (bool and int32 to float32, float32 to int32) in parallel
// loops, to the values the float64 path gives (a float32 or int32 is
// exact in float64, so one rounding either way); false for other pairs.
func convertDirect(x *runCtx, dst, src any) bool {
	switch d := dst.(type) {
	case []float32:
		switch s := src.(type) {
		case []bool:
			parallel(x, len(d), func(lo, hi int) {
				for i, v := range s[lo:hi] {
					d[lo+i] = 0
					if v {
						d[lo+i] = 1
					}
				}
			})
			return true
		case []int32:
			parallel(x, len(d), func(lo, hi int) {
				for i, v := range s[lo:hi] {
					d[lo+i] = float32(v)
				}
			})
			return true
		}
	case []int32:
		if s, ok := src.([]float32); ok {
			parallel(x, len(d), func(lo, hi int) {
				for i, v := range s[lo:hi] {
					d[lo+i] = int32(float64(v))
				}
			})
			return true
		}
	}
	return false
}

func fill[T any](dst []T, src func(int) float64, f func(float64) T) {
	for i := range dst {
		dst[i] = f(src(i))
	}
}

// toFloat64s reads element i of flat as a float64 (int64 beyond 2^53
// would round; goeval's graphs convert only small ints).
func toFloat64s(flat any) func(int) float64 {
	switch f := flat.(type) {
	case []float32:
		return func(i int) float64 { return float64(f[i]) }
	case []float64:
		return func(i int) float64 { return f[i] }
	case []bfloat16.BFloat16:
		return func(i int) float64 { return float64(f[i].Float32()) }
	case []int32:
		return func(i int) float64 { return float64(f[i]) }
	case []int64:
		return func(i int) float64 { return float64(f[i]) }
	case []bool:
		return func(i int) float64 {
			if f[i] {
				return 1
			}
			return 0
		}
	}
	panic("gocpu: unsupported flat type")
}
