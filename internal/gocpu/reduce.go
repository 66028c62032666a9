package gocpu

import (
	"math"
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/shapeinference"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"
)

// Reductions run in index order (row-major over the reduced axes), one
// accumulator per output element: the same order whatever else the
// tensor holds.

func init() {
	register(backends.OpTypeReduceSum, backends.OpTypeReduceMax, backends.OpTypeReduceMin,
		backends.OpTypeReduceProduct, backends.OpTypeArgMinMax)
}

func (b *Builder) reduce(op backends.OpType, x backends.Op, axes []int) (backends.Op, error) {
	in, err := b.nodes2(op.String(), x)
	if err != nil {
		return nil, err
	}
	s := in[0].shape
	if len(axes) == 0 {
		for ax := range s.Rank() {
			axes = append(axes, ax)
		}
	}
	shape, err := shapeinference.ReduceOp(s, axes)
	if err != nil {
		return nil, err
	}
	// ost: the output stride of each input axis, 0 on reduced axes.
	ost := make([]int, s.Rank())
	stride := 1
	for ax := s.Rank() - 1; ax >= 0; ax-- {
		if !slices.Contains(axes, ax) {
			ost[ax] = stride
			stride *= s.Dimensions[ax]
		}
	}
	var run runFunc
	switch s.DType {
	case dtypes.Float32:
		run = reduceRun[float32](op, s, shape, ost)
	case dtypes.Float64:
		run = reduceRun[float64](op, s, shape, ost)
	case dtypes.Int32:
		run = reduceRun[int32](op, s, shape, ost)
	case dtypes.Int64:
		run = reduceRun[int64](op, s, shape, ost)
	}
	if run == nil {
		return nil, errUnsupported(op.String(), s.DType.String())
	}
	n := b.newNode(op, shape, run, in[0])
	n.lastAxis = len(axes) == 1 && axes[0] == s.Rank()-1
	return n, nil
}

func reduceRun[T number](op backends.OpType, s, out shapes.Shape, ost []int) runFunc {
	// suffix: the reduced axes are the trailing ones (norms, softmax).
	suffix := true
	for ax := range s.Rank() {
		if ost[ax] == 0 && s.Dimensions[ax] != 1 {
			for _, later := range ost[ax+1:] {
				suffix = suffix && later == 0
			}
		}
	}
	var f func(a, v T) T
	var init T
	switch op {
	case backends.OpTypeReduceSum:
		f = func(a, v T) T { return a + v }
	case backends.OpTypeReduceProduct:
		f, init = func(a, v T) T { return a * v }, 1
	case backends.OpTypeReduceMax:
		f, init = maxNaN[T], lowest[T]()
	case backends.OpTypeReduceMin:
		f, init = minNaN[T], highest[T]()
	default:
		return nil
	}
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		src := in[0].flat.([]T)
		o := x.alloc(out, false)
		dst := o.flat.([]T)
		for i := range dst {
			dst[i] = init
		}
		if inner := len(src) / max(len(dst), 1); suffix && len(dst) > 1 && len(src) >= minChunk {
			// Trailing axes reduced: each output folds its own run of src.
			parallelRange(x, len(dst), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					dst[i] = fold(src[i*inner:(i+1)*inner], init, f, op)
				}
			})
			return o, nil
		}
		reduceInto(dst, src, s.Dimensions, ost, f)
		return o, nil
	}
}

// reduceInto folds every element of src (row-major over dims) into
// dst[Σ idx·ost]. When the last axis is reduced its row folds into one
// accumulator.
func reduceInto[T any](dst, src []T, dims, ost []int, f func(a, v T) T) {
	r := len(dims)
	if r == 0 {
		dst[0] = f(dst[0], src[0])
		return
	}
	inner, is := dims[r-1], ost[r-1]
	if inner == 0 || len(src) == 0 {
		return
	}
	w := newRowWalk(dims, ost, 0)
	for o := 0; o < len(src); o += inner {
		row, pos := src[o:o+inner], w.pos
		if is == 0 {
			a := dst[pos]
			for _, v := range row {
				a = f(a, v)
			}
			dst[pos] = a
		} else {
			d := dst[pos : pos+inner]
			for i, v := range row {
				d[i] = f(d[i], v)
			}
		}
		w.next()
	}
}

func lowest[T number]() T {
	var z T
	switch any(z).(type) {
	case float32:
		return T(math.Inf(-1))
	case float64:
		return T(math.Inf(-1))
	case int32:
		return T(math.MinInt32)
	}
	v := int64(math.MinInt64)
	return T(v)
}

func highest[T number]() T {
	var z T
	switch any(z).(type) {
	case float32:
		return T(math.Inf(1))
	case float64:
		return T(math.Inf(1))
	case int32:
		return T(math.MaxInt32)
	}
	v := int64(math.MaxInt64)
	return T(v)
}

// ReduceSum implements backends.Builder; the other reductions follow.
func (b *Builder) ReduceSum(x backends.Op, axes ...int) (backends.Op, error) {
	return b.reduce(backends.OpTypeReduceSum, x, axes)
}
func (b *Builder) ReduceMax(x backends.Op, axes ...int) (backends.Op, error) {
	return b.reduce(backends.OpTypeReduceMax, x, axes)
}
func (b *Builder) ReduceMin(x backends.Op, axes ...int) (backends.Op, error) {
	return b.reduce(backends.OpTypeReduceMin, x, axes)
}
func (b *Builder) ReduceProduct(x backends.Op, axes ...int) (backends.Op, error) {
	return b.reduce(backends.OpTypeReduceProduct, x, axes)
}

// ArgMinMax implements backends.Builder: the first index of the minimum
// or maximum along axis; a NaN wins.
func (b *Builder) ArgMinMax(x backends.Op, axis int, outDType dtypes.DType, isMin bool) (backends.Op, error) {
	in, err := b.nodes2("ArgMinMax", x)
	if err != nil {
		return nil, err
	}
	s := in[0].shape
	shape, err := shapeinference.ArgMinMaxOp(s, axis, outDType)
	if err != nil {
		return nil, err
	}
	if outDType != dtypes.Int32 && outDType != dtypes.Int64 {
		return nil, errors.Errorf("gocpu: ArgMinMax to %s is not supported", outDType)
	}
	if n := b.fuseArgMaxHead(in[0], axis, isMin, shape); n != nil {
		return n, nil
	}
	outer, dim, inner := 1, s.Dimensions[axis], 1
	for _, d := range s.Dimensions[:axis] {
		outer *= d
	}
	for _, d := range s.Dimensions[axis+1:] {
		inner *= d
	}
	run := func(x *runCtx, v []*Buffer) (*Buffer, error) {
		o := x.alloc(shape, false)
		if f, ok := v[0].flat.([]float32); ok && inner == 1 {
			argRows32(x, o.flat, f, dim, isMin)
			return o, nil
		}
		get := toFloat64s(v[0].flat)
		for i := 0; i < outer*inner; i++ {
			base := (i/inner)*dim*inner + i%inner
			best, bi := get(base), 0
			for j := 1; j < dim && best == best; j++ {
				c := get(base + j*inner)
				if c != c || (isMin && c < best) || (!isMin && c > best) {
					best, bi = c, j
				}
			}
			switch d := o.flat.(type) {
			case []int32:
				d[i] = int32(bi)
			case []int64:
				d[i] = int64(bi)
			}
		}
		return o, nil
	}
	return b.newNode(backends.OpTypeArgMinMax, shape, run, in[0]), nil
}

// fold reduces run in order from init; sums, maxima and minima are written
// out (a call per element through f costs more than the operation: a
// decode step's softmax maxima took 2.7 ns per element through f).
func fold[T number](run []T, init T, f func(a, v T) T, op backends.OpType) T {
	a := init
	switch op {
	case backends.OpTypeReduceSum:
		for _, v := range run {
			a += v
		}
	case backends.OpTypeReduceMax: // maxNaN, in the same order
		for _, v := range run {
			if a == a && !(a > v) {
				a = v
			}
		}
	case backends.OpTypeReduceMin: // minNaN, in the same order
		for _, v := range run {
			if a == a && !(a < v) {
				a = v
			}
		}
	default:
		for _, v := range run {
			a = f(a, v)
		}
	}
	return a
}

// argRows32 is ArgMinMax over the last axis of float32 rows of dim
// elements, rows in parallel: the same comparisons in the same order as
// the general loop (the first NaN wins, else the first extreme), without a
// call per element (the greedy check over a 151936-token vocabulary took 4
// ns per element through it).
func argRows32(x *runCtx, dst any, src []float32, dim int, isMin bool) {
	rows := len(src) / dim
	parallelRange(x, rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := src[r*dim : (r+1)*dim]
			best, bi := row[0], 0
			for j := 1; j < dim && best == best; j++ {
				c := row[j]
				if c != c || (isMin && c < best) || (!isMin && c > best) {
					best, bi = c, j
				}
			}
			switch d := dst.(type) {
			case []int32:
				d[r] = int32(bi)
			case []int64:
				d[r] = int64(bi)
			}
		}
	})
}
