package gocpu

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/shapeinference"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"
)

// Ops that move elements: reshape (no copy), transpose, broadcast, slice,
// concatenate, iota. All copies go through stridedCopy.

func init() {
	register(backends.OpTypeReshape, backends.OpTypeTranspose, backends.OpTypeBroadcastInDim,
		backends.OpTypeSlice, backends.OpTypeConcatenate, backends.OpTypeIota, backends.OpTypeIdentity)
}

// Reshape implements backends.Builder: the value shares its input's storage.
func (b *Builder) Reshape(x backends.Op, dims ...int) (backends.Op, error) {
	in, err := b.nodes2("Reshape", x)
	if err != nil {
		return nil, err
	}
	shape, err := shapeinference.ReshapeOp(in[0].shape, dims)
	if err != nil {
		return nil, err
	}
	n := b.newNode(backends.OpTypeReshape, shape, func(_ *runCtx, v []*Buffer) (*Buffer, error) {
		return &Buffer{shape: shape, flat: v[0].flat}, nil
	}, in[0])
	n.alias = true
	return n, nil
}

// strides returns row-major strides of dims.
func strides(dims []int) []int {
	st := make([]int, len(dims))
	s := 1
	for i := len(dims) - 1; i >= 0; i-- {
		st[i] = s
		s *= dims[i]
	}
	return st
}

// Transpose implements backends.Builder.
func (b *Builder) Transpose(x backends.Op, perm ...int) (backends.Op, error) {
	in, err := b.nodes2("Transpose", x)
	if err != nil {
		return nil, err
	}
	shape, err := shapeinference.TransposeOp(in[0].shape, perm)
	if err != nil {
		return nil, err
	}
	inSt := strides(in[0].shape.Dimensions)
	src := make([]int, len(perm)) // source stride of each output axis
	for i, p := range perm {
		src[i] = inSt[p]
	}
	return b.newNode(backends.OpTypeTranspose, shape, copyRun(shape, 0, src), in[0]), nil
}

// BroadcastInDim implements backends.Builder.
func (b *Builder) BroadcastInDim(x backends.Op, out shapes.Shape, axes []int) (backends.Op, error) {
	in, err := b.nodes2("BroadcastInDim", x)
	if err != nil {
		return nil, err
	}
	if err := shapeinference.BroadcastInDimOp(in[0].shape, out, axes); err != nil {
		return nil, err
	}
	inSt := strides(in[0].shape.Dimensions)
	src := make([]int, out.Rank())
	for i, ax := range axes {
		if in[0].shape.Dimensions[i] != 1 {
			src[ax] = inSt[i]
		}
	}
	n := b.newNode(backends.OpTypeBroadcastInDim, out.Clone(), copyRun(out.Clone(), 0, src), in[0])
	n.aux = slices.Clone(axes) // dotcolumns.go matches it
	return n, nil
}

// Slice implements backends.Builder.
func (b *Builder) Slice(x backends.Op, starts, limits, stepsIn []int) (backends.Op, error) {
	in, err := b.nodes2("Slice", x)
	if err != nil {
		return nil, err
	}
	shape, err := shapeinference.SliceOp(in[0].shape, starts, limits, stepsIn)
	if err != nil {
		return nil, err
	}
	inSt := strides(in[0].shape.Dimensions)
	src := make([]int, shape.Rank())
	off := 0
	for ax := range src {
		step := 1
		if len(stepsIn) > 0 {
			step = stepsIn[ax]
		}
		src[ax] = inSt[ax] * step
		off += starts[ax] * inSt[ax]
	}
	n := b.newNode(backends.OpTypeSlice, shape, copyRun(shape, off, src), in[0])
	if unitSteps(stepsIn) {
		n.aux = append(slices.Clone(starts), limits...)
	}
	return n, nil
}

// unitSteps reports whether Slice's steps are all 1 (or not given).
func unitSteps(steps []int) bool {
	for _, st := range steps {
		if st != 1 {
			return false
		}
	}
	return true
}

// copyRun copies input 0 into a new buffer of shape, reading output
// element idx from off + Σ idx[ax]·src[ax].
func copyRun(shape shapes.Shape, off int, src []int) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		o := x.alloc(shape, false)
		stridedCopy(o.flat, shape.Dimensions, in[0].flat, off, src)
		return o, nil
	}
}

// stridedCopy fills dst (row-major over dims) from src.
func stridedCopy(dst any, dims []int, src any, off int, st []int) {
	switch d := dst.(type) {
	case []float32:
		stridedCopyT(d, dims, src.([]float32), off, st)
	case []float64:
		stridedCopyT(d, dims, src.([]float64), off, st)
	case []int32:
		stridedCopyT(d, dims, src.([]int32), off, st)
	case []int64:
		stridedCopyT(d, dims, src.([]int64), off, st)
	case []bool:
		stridedCopyT(d, dims, src.([]bool), off, st)
	}
}

// rowWalk is an odometer over the rows (every axis but the last) of dims
// in row-major order: pos is the current row's offset in a layout with
// strides st.
type rowWalk struct {
	dims, st, idx []int
	pos           int
}

func newRowWalk(dims, st []int, off int) rowWalk {
	r := len(dims) - 1
	return rowWalk{dims: dims[:r], st: st[:r], idx: make([]int, r), pos: off}
}

// next moves to the next row.
func (w *rowWalk) next() {
	for ax := len(w.idx) - 1; ax >= 0; ax-- {
		w.idx[ax]++
		w.pos += w.st[ax]
		if w.idx[ax] < w.dims[ax] {
			return
		}
		w.pos -= w.st[ax] * w.dims[ax]
		w.idx[ax] = 0
	}
}

// stridedCopyT: the last axis is the inner loop (contiguous when its
// stride is 1); the outer axes advance a rowWalk once per row.
func stridedCopyT[T any](dst []T, dims []int, src []T, off int, st []int) {
	r := len(dims)
	if r == 0 {
		dst[0] = src[off]
		return
	}
	inner, is := dims[r-1], st[r-1]
	if inner == 0 || len(dst) == 0 {
		return
	}
	w := newRowWalk(dims, st, off)
	for o := 0; o < len(dst); o += inner {
		row, pos := dst[o:o+inner], w.pos
		switch is {
		case 1:
			copy(row, src[pos:pos+inner])
		case 0:
			v := src[pos]
			for i := range row {
				row[i] = v
			}
		default:
			p := pos
			for i := range row {
				row[i] = src[p]
				p += is
			}
		}
		w.next()
	}
}

// Concatenate implements backends.Builder.
func (b *Builder) Concatenate(axis int, ops ...backends.Op) (backends.Op, error) {
	in, err := b.nodes2("Concatenate", ops...)
	if err != nil {
		return nil, err
	}
	ins := make([]shapes.Shape, len(in))
	for i, n := range in {
		ins[i] = n.shape
	}
	shape, err := shapeinference.ConcatenateOp(ins, axis)
	if err != nil {
		return nil, err
	}
	outer := 1
	for _, d := range shape.Dimensions[:axis] {
		outer *= d
	}
	rowOut := shape.Size() / max(outer, 1)
	run := func(x *runCtx, v []*Buffer) (*Buffer, error) {
		o := x.alloc(shape, false)
		at := 0
		for i, buf := range v {
			rowIn := ins[i].Size() / max(outer, 1)
			concatInto(o.flat, buf.flat, outer, rowOut, rowIn, at)
			at += rowIn
		}
		return o, nil
	}
	n := b.newNode(backends.OpTypeConcatenate, shape, run, in...)
	n.aux = []int{axis}
	return n, nil
}

// concatInto copies src's outer rows of rowIn elements to dst's rows of
// rowOut elements at column at.
func concatInto(dst, src any, outer, rowOut, rowIn, at int) {
	for r := 0; r < outer; r++ {
		copySlice(dst, r*rowOut+at, src, r*rowIn, rowIn)
	}
}

func copySlice(dst any, do int, src any, so, n int) {
	switch d := dst.(type) {
	case []float32:
		copy(d[do:do+n], src.([]float32)[so:so+n])
	case []float64:
		copy(d[do:do+n], src.([]float64)[so:so+n])
	case []int32:
		copy(d[do:do+n], src.([]int32)[so:so+n])
	case []int64:
		copy(d[do:do+n], src.([]int64)[so:so+n])
	case []bool:
		copy(d[do:do+n], src.([]bool)[so:so+n])
	}
}

// Iota implements backends.Builder.
func (b *Builder) Iota(shape shapes.Shape, axis int) (backends.Op, error) {
	if b.compiled {
		return nil, errors.New("gocpu: Iota: graph already compiled")
	}
	if axis < 0 || axis >= shape.Rank() {
		return nil, errors.Errorf("gocpu: Iota: axis %d out of range for %s", axis, shape)
	}
	if err := checkDType(shape.DType); err != nil || shape.DType == dtypes.Bool {
		return nil, errors.Errorf("gocpu: Iota of %s is not supported", shape.DType)
	}
	shape = shape.Clone()
	st := strides(shape.Dimensions)
	dim := shape.Dimensions[axis]
	run := func(x *runCtx, _ []*Buffer) (*Buffer, error) {
		o := x.alloc(shape, false)
		get := func(i int) float64 { return float64((i / st[axis]) % dim) }
		switch d := o.flat.(type) {
		case []float32:
			fill(d, get, func(v float64) float32 { return float32(v) })
		case []float64:
			fill(d, get, func(v float64) float64 { return v })
		case []int32:
			fill(d, get, func(v float64) int32 { return int32(v) })
		case []int64:
			fill(d, get, func(v float64) int64 { return int64(v) })
		}
		return o, nil
	}
	return b.newNode(backends.OpTypeIota, shape, run), nil
}
