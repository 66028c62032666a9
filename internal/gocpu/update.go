package gocpu

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"
)

func init() { register(backends.OpTypeDynamicUpdateSlice) }

// DynamicUpdateSlice implements backends.Builder: the operand with update
// pasted at the start indices, each clamped to [0, dim − update dim]. It
// writes into the operand's own storage when the execution owns it and
// nothing reads it afterwards (exec.go's plan: an intermediate, or an
// input the caller donated), else into a copy — so a decode step that
// writes one slot of a donated KV cache costs the slot, not the cache.
//
//	operand [d…], update [u…] (u ≤ d), start rank × scalar int → [d…]
func (b *Builder) DynamicUpdateSlice(operand, update backends.Op, start []backends.Op) (backends.Op, error) {
	in, err := b.nodes2("DynamicUpdateSlice", append([]backends.Op{operand, update}, start...)...)
	if err != nil {
		return nil, err
	}
	op, up := in[0].shape, in[1].shape
	if up.DType != op.DType || up.Rank() != op.Rank() || len(start) != op.Rank() {
		return nil, errors.Errorf("gocpu: DynamicUpdateSlice: update %s and %d start indices do not fit operand %s", up, len(start), op)
	}
	for ax, d := range up.Dimensions {
		s := in[2+ax].shape
		if d > op.Dimensions[ax] || s.Rank() != 0 || (s.DType != dtypes.Int32 && s.DType != dtypes.Int64) {
			return nil, errors.Errorf("gocpu: DynamicUpdateSlice: update %s, start index %d %s, operand %s", up, ax, s, op)
		}
	}
	if err := checkDType(op.DType); err != nil {
		return nil, err
	}
	n := b.newNode(backends.OpTypeDynamicUpdateSlice, op.Clone(), updateRun(op.Clone(), up.Clone()), in...)
	n.inPlace = true
	return n, nil
}

// updateRun runs DynamicUpdateSlice; x.inPlace says whether input 0's
// storage is the output's.
func updateRun(op, up shapes.Shape) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		o := in[0]
		if !x.inPlace {
			o = x.alloc(op, false)
			if err := copyFlat(o.flat, in[0].flat); err != nil {
				return nil, err
			}
		} else {
			o = &Buffer{shape: op, flat: in[0].flat}
		}
		st := strides(op.Dimensions)
		off := 0
		for ax, d := range up.Dimensions {
			s := scalarInt(in[2+ax].flat)
			s = max(0, min(s, op.Dimensions[ax]-d))
			off += s * st[ax]
		}
		switch dst := o.flat.(type) {
		case []float32:
			paste(dst, off, st, in[1].flat.([]float32), up.Dimensions)
		case []float64:
			paste(dst, off, st, in[1].flat.([]float64), up.Dimensions)
		case []int32:
			paste(dst, off, st, in[1].flat.([]int32), up.Dimensions)
		case []int64:
			paste(dst, off, st, in[1].flat.([]int64), up.Dimensions)
		case []bool:
			paste(dst, off, st, in[1].flat.([]bool), up.Dimensions)
		default:
			return nil, errUnsupported("DynamicUpdateSlice", op.DType.String())
		}
		return o, nil
	}
}

// scalarInt is the value of a scalar int32 or int64 buffer.
func scalarInt(flat any) int {
	if v, ok := flat.([]int32); ok {
		return int(v[0])
	}
	return int(flat.([]int64)[0])
}

// paste copies src (dims, row-major) into dst at off with dst's strides
// st, one last-axis row at a time.
func paste[T any](dst []T, off int, st []int, src []T, dims []int) {
	r := len(dims)
	if r == 0 {
		dst[off] = src[0]
		return
	}
	inner := dims[r-1]
	if inner == 0 || len(src) == 0 {
		return
	}
	w := newRowWalk(dims, st, off)
	for o := 0; o < len(src); o += inner {
		copy(dst[w.pos:w.pos+inner], src[o:o+inner])
		w.next()
	}
}
