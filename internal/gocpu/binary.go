package gocpu

import (
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/shapeinference"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// Binary, comparison and logical ops, with GoMLX's broadcasting: an
// operand is a scalar or has the output's rank with 1 on broadcast axes.

func (b *Builder) binary(op backends.OpType, lhs, rhs backends.Op) (backends.Op, error) {
	in, err := b.nodes2(op.String(), lhs, rhs)
	if err != nil {
		return nil, err
	}
	ls, rs := in[0].shape, in[1].shape
	var shape shapes.Shape
	if shapeinference.ComparisonOperations.Has(op) {
		shape, err = shapeinference.ComparisonOp(op, ls, rs)
	} else {
		shape, err = shapeinference.BinaryOp(op, ls, rs)
	}
	if err != nil {
		return nil, err
	}
	run := binaryRunFor(op, ls, rs, shape)
	if run == nil {
		return nil, errUnsupported(op.String(), ls.DType.String())
	}
	return b.newNode(op, shape, run, in[0], in[1]), nil
}

func binaryRunFor(op backends.OpType, ls, rs, out shapes.Shape) runFunc {
	switch ls.DType {
	case dtypes.Float32:
		return numericBinary[float32](op, ls, rs, out)
	case dtypes.Float64:
		return numericBinary[float64](op, ls, rs, out)
	case dtypes.Int32:
		return numericBinary[int32](op, ls, rs, out)
	case dtypes.Int64:
		return numericBinary[int64](op, ls, rs, out)
	case dtypes.Bool:
		switch op {
		case backends.OpTypeLogicalAnd:
			return binaryRun(ls, rs, out, func(a, b bool) bool { return a && b })
		case backends.OpTypeLogicalOr:
			return binaryRun(ls, rs, out, func(a, b bool) bool { return a || b })
		case backends.OpTypeEqual:
			return binaryRun(ls, rs, out, func(a, b bool) bool { return a == b })
		case backends.OpTypeNotEqual:
			return binaryRun(ls, rs, out, func(a, b bool) bool { return a != b })
		}
	}
	return nil
}

func numericBinary[T number](op backends.OpType, ls, rs, out shapes.Shape) runFunc {
	if row := arith32Row(op); row != nil && ls.DType == dtypes.Float32 {
		return binaryRowRun(ls, rs, out, row)
	}
	switch op {
	case backends.OpTypeAdd:
		return binaryRun(ls, rs, out, func(a, b T) T { return a + b })
	case backends.OpTypeSub:
		return binaryRun(ls, rs, out, func(a, b T) T { return a - b })
	case backends.OpTypeMul:
		return binaryRun(ls, rs, out, func(a, b T) T { return a * b })
	case backends.OpTypeDiv:
		return binaryRun(ls, rs, out, func(a, b T) T { return a / b })
	case backends.OpTypeMax:
		return binaryRun(ls, rs, out, maxNaN[T])
	case backends.OpTypeMin:
		return binaryRun(ls, rs, out, minNaN[T])
	case backends.OpTypePow:
		return binaryRun(ls, rs, out, func(a, b T) T { return T(pow(float64(a), float64(b))) })
	case backends.OpTypeEqual:
		return binaryRun(ls, rs, out, func(a, b T) bool { return a == b })
	case backends.OpTypeNotEqual:
		return binaryRun(ls, rs, out, func(a, b T) bool { return a != b })
	case backends.OpTypeLessThan:
		return binaryRun(ls, rs, out, func(a, b T) bool { return a < b })
	case backends.OpTypeLessOrEqual:
		return binaryRun(ls, rs, out, func(a, b T) bool { return a <= b })
	case backends.OpTypeGreaterThan:
		return binaryRun(ls, rs, out, func(a, b T) bool { return a > b })
	case backends.OpTypeGreaterOrEqual:
		return binaryRun(ls, rs, out, func(a, b T) bool { return a >= b })
	}
	return nil
}

// pow is math.Pow(a, b), with a power of two 2^b of an integer b
// computed as Ldexp does (the same value, exact) — five times faster than
// Pow's general path, and what LLM.int8's float16 rounding asks for per
// activation (nn.RoundToFloat16).
func pow(a, b float64) float64 {
	if a == 2 && b == math.Trunc(b) && b > -1000 && b < 1000 {
		return math.Ldexp(1, int(b))
	}
	return math.Pow(a, b)
}

// maxNaN and minNaN propagate NaN, as XLA's max and min do.
func maxNaN[T number](a, b T) T {
	if a != a || a > b {
		return a
	}
	return b
}

func minNaN[T number](a, b T) T {
	if a != a || a < b {
		return a
	}
	return b
}

// rowFunc sets d[k] = f(a[k·si], c[k·sj]) for k < len(d), si, sj ∈ {0, 1}
// (0: the operand is one value along the row).
type rowFunc[T, U any] func(d []U, a, c []T, si, sj int)

// binaryRun returns the run of f over broadcast operands.
func binaryRun[T, U any](ls, rs, out shapes.Shape, f func(T, T) U) runFunc {
	return binaryRowRun(ls, rs, out, func(d []U, a, c []T, si, sj int) {
		switch {
		case si == 1 && sj == 1:
			a, c = a[:len(d)], c[:len(d)]
			for k := range d {
				d[k] = f(a[k], c[k])
			}
		case si == 1:
			v := c[0]
			for k := range d {
				d[k] = f(a[k], v)
			}
		case sj == 1:
			v := a[0]
			for k := range d {
				d[k] = f(v, c[k])
			}
		default:
			v := f(a[0], c[0])
			for k := range d {
				d[k] = v
			}
		}
	})
}

// binaryRowRun runs row over the broadcast operands, in parallel rows.
func binaryRowRun[T, U any](ls, rs, out shapes.Shape, row rowFunc[T, U]) runFunc {
	bp := newBcastPlan(out.Dimensions, bcastStrides(ls, out), bcastStrides(rs, out))
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		a, c := in[0].flat.([]T), in[1].flat.([]T)
		o := x.alloc(out, false)
		dst := o.flat.([]U)
		if len(a) == len(dst) && len(c) == len(dst) {
			parallel(x, len(dst), func(lo, hi int) { row(dst[lo:hi], a[lo:], c[lo:], 1, 1) })
			return o, nil
		}
		bp.run(x, func(o, i, j, n, si, sj int) { row(dst[o:o+n], a[i:], c[j:], si, sj) })
		return o, nil
	}
}

// bcastPlan is a broadcast over merged axes: adjacent axes along which
// both operands are contiguous (or both constant) are one axis, so the
// inner loop is as long as it can be.
type bcastPlan struct {
	dims, ls, rs []int
}

func newBcastPlan(dims, ls, rs []int) bcastPlan {
	if len(dims) == 0 {
		return bcastPlan{dims: []int{1}, ls: []int{0}, rs: []int{0}}
	}
	p := bcastPlan{dims: []int{dims[0]}, ls: []int{ls[0]}, rs: []int{rs[0]}}
	for ax := 1; ax < len(dims); ax++ {
		last := len(p.dims) - 1
		d := dims[ax]
		merge := func(prev, cur int) bool { return prev == cur*d }
		if merge(p.ls[last], ls[ax]) && merge(p.rs[last], rs[ax]) {
			p.dims[last] *= d
			p.ls[last], p.rs[last] = ls[ax], rs[ax]
			continue
		}
		p.dims, p.ls, p.rs = append(p.dims, d), append(p.ls, ls[ax]), append(p.rs, rs[ax])
	}
	return p
}

// run calls row(outOffset, lhsOffset, rhsOffset, n, lhsStep, rhsStep) for
// every run of n output elements along the innermost merged axis, rows
// split over the threads.
func (p bcastPlan) run(x *runCtx, row func(o, i, j, n, si, sj int)) {
	r := len(p.dims) - 1
	inner := p.dims[r]
	rows := 1
	for _, d := range p.dims[:r] {
		rows *= d
	}
	work := func(lo, hi int) {
		for q := lo; q < hi; q++ {
			i, j, rem := 0, 0, q
			for ax := r - 1; ax >= 0; ax-- {
				k := rem % p.dims[ax]
				rem /= p.dims[ax]
				i += k * p.ls[ax]
				j += k * p.rs[ax]
			}
			row(q*inner, i, j, inner, p.ls[r], p.rs[r])
		}
	}
	si, sj := p.ls[r], p.rs[r]
	switch {
	case rows*inner < minChunk:
		work(0, rows)
	case rows == 1: // one long run: split it
		parallel(x, inner, func(lo, hi int) { row(lo, lo*si, lo*sj, hi-lo, si, sj) })
	default:
		parallelRange(x, rows, work)
	}
}

// Add implements backends.Builder; the other binary ops follow.
func (b *Builder) Add(l, r backends.Op) (backends.Op, error) {
	if n := b.fuseRoPE(l, r); n != nil {
		return n, nil
	}
	return b.binary(backends.OpTypeAdd, l, r)
}
func (b *Builder) Sub(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeSub, l, r)
}
func (b *Builder) Mul(l, r backends.Op) (backends.Op, error) {
	if n := b.fuseSwiGLU(l, r); n != nil {
		return n, nil
	}
	return b.binary(backends.OpTypeMul, l, r)
}
func (b *Builder) Div(l, r backends.Op) (backends.Op, error) {
	if n := b.fuseSoftmax(l, r); n != nil {
		return n, nil
	}
	return b.binary(backends.OpTypeDiv, l, r)
}
func (b *Builder) Max(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeMax, l, r)
}
func (b *Builder) Min(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeMin, l, r)
}
func (b *Builder) Pow(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypePow, l, r)
}
func (b *Builder) LogicalAnd(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeLogicalAnd, l, r)
}
func (b *Builder) LogicalOr(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeLogicalOr, l, r)
}
func (b *Builder) Equal(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeEqual, l, r)
}
func (b *Builder) NotEqual(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeNotEqual, l, r)
}
func (b *Builder) LessThan(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeLessThan, l, r)
}
func (b *Builder) LessOrEqual(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeLessOrEqual, l, r)
}
func (b *Builder) GreaterThan(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeGreaterThan, l, r)
}
func (b *Builder) GreaterOrEqual(l, r backends.Op) (backends.Op, error) {
	return b.binary(backends.OpTypeGreaterOrEqual, l, r)
}

// Where implements backends.Builder.
func (b *Builder) Where(cond, onTrue, onFalse backends.Op) (backends.Op, error) {
	if n := b.fuseRoundF16(cond, onTrue, onFalse); n != nil {
		return n, nil
	}
	in, err := b.nodes2("Where", cond, onTrue, onFalse)
	if err != nil {
		return nil, err
	}
	shape, err := shapeinference.WhereOp(in[0].shape, in[1].shape, in[2].shape)
	if err != nil {
		return nil, err
	}
	var run runFunc
	switch shape.DType {
	case dtypes.Float32:
		run = whereRun[float32](shape)
	case dtypes.Float64:
		run = whereRun[float64](shape)
	case dtypes.Int32:
		run = whereRun[int32](shape)
	case dtypes.Int64:
		run = whereRun[int64](shape)
	case dtypes.Bool:
		run = whereRun[bool](shape)
	}
	return b.newNode(backends.OpTypeWhere, shape, run, in...), nil
}

// whereRun: each operand is a scalar or has the output's shape.
func whereRun[T any](shape shapes.Shape) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		c, t, f := in[0].flat.([]bool), in[1].flat.([]T), in[2].flat.([]T)
		o := x.alloc(shape, false)
		dst := o.flat.([]T)
		parallel(x, len(dst), func(lo, hi int) {
			d := dst[lo:hi]
			var cc []bool
			if len(c) > 1 {
				cc = c[lo:hi]
			}
			switch {
			case len(t) > 1 && len(f) > 1 && cc != nil:
				tt, ff := t[lo:hi], f[lo:hi]
				for k := range d {
					if cc[k] {
						d[k] = tt[k]
					} else {
						d[k] = ff[k]
					}
				}
			case len(t) > 1 && len(f) == 1 && cc != nil:
				tt, fv := t[lo:hi], f[0]
				for k := range d {
					if cc[k] {
						d[k] = tt[k]
					} else {
						d[k] = fv
					}
				}
			default:
				for k := range d {
					ci, ti, fi := 0, 0, 0
					if cc != nil {
						ci = k
					}
					if len(t) > 1 {
						ti = lo + k
					}
					if len(f) > 1 {
						fi = lo + k
					}
					if (cc != nil && cc[ci]) || (cc == nil && c[0]) {
						d[k] = t[ti]
					} else {
						d[k] = f[fi]
					}
				}
			}
		})
		return o, nil
	}
}

// bcastStrides returns s's strides over the axes of out: 0 where s is a
// scalar or has dimension 1.
func bcastStrides(s, out shapes.Shape) []int {
	st := make([]int, out.Rank())
	if s.IsScalar() {
		return st
	}
	stride := 1
	for ax := out.Rank() - 1; ax >= 0; ax-- {
		if s.Dimensions[ax] != 1 {
			st[ax] = stride
		}
		stride *= s.Dimensions[ax]
	}
	return st
}
