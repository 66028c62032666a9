package gocpu

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// RoPE fusion. models/nn.ApplyRoPE rotates x [..., D] by tables cos and
// sin of x's rank, each axis x's size or 1 (for q and k: x [B, T, N, D],
// the tables [B, T, 1, D]):
//
//	x1, x2 = Slice(x, last 0:D/2), Slice(x, last D/2:D)
//	Add(Mul(x, cos), Mul(Concatenate(last, Neg(x2), x1), sin))
//
// becomes one node reading x, cos and sin when Add is built. Each output
// element is the separate ops' value, bit for bit: both products rounded
// to float32, then their sum (the negation is exact, and products and
// sums commute). One pass over x instead of six ops and five [..., D]
// intermediates (~3 % of a 0.5B scoring pass). The chain's nodes stay in
// the graph and do not run unless something else reads them.

// fuseRoPE returns the fused node for Add(l, r) when l and r are the
// rotation's two products (either order), else nil.
func (b *Builder) fuseRoPE(l, r backends.Op) *node {
	ln, err1 := b.node(l, "Add")
	rn, err2 := b.node(r, "Add")
	if !fuseOps || err1 != nil || err2 != nil || b.compiled {
		return nil
	}
	for _, p := range [2][2]*node{{ln, rn}, {rn, ln}} {
		if in := matchRoPE(p[0], p[1]); in != nil {
			n := b.newNode(backends.OpTypeAdd, p[0].shape, ropeRun(in[0].shape, in[1].shape), in...)
			n.fused = "RoPE"
			return n
		}
	}
	return nil
}

// matchRoPE matches direct = Mul(x, cos) and rotated = Mul(Concatenate(
// Neg(x2), x1), sin) (each Mul in either order) and returns [x, cos, sin];
// else nil.
func matchRoPE(direct, rotated *node) []*node {
	if direct.op != backends.OpTypeMul || rotated.op != backends.OpTypeMul || direct.shape.DType != dtypes.Float32 {
		return nil
	}
	cat, sin := rotated.inputs[0], rotated.inputs[1]
	if cat.op != backends.OpTypeConcatenate {
		cat, sin = sin, cat
	}
	x := rotatedHalves(cat)
	if x == nil || !x.shape.Equal(direct.shape) || !x.shape.Equal(rotated.shape) {
		return nil
	}
	cos := direct.inputs[1]
	if direct.inputs[0] != x {
		if direct.inputs[1] != x {
			return nil
		}
		cos = direct.inputs[0]
	}
	if !ropeTable(cos.shape, x.shape) || !cos.shape.Equal(sin.shape) {
		return nil
	}
	return []*node{x, cos, sin}
}

// rotatedHalves returns x when cat is Concatenate(last, Neg(Slice(x, last
// D/2:D)), Slice(x, last 0:D/2)), all else of x whole; else nil.
func rotatedHalves(cat *node) *node {
	if cat.op != backends.OpTypeConcatenate || len(cat.inputs) != 2 || len(cat.aux) != 1 {
		return nil
	}
	neg, x1 := cat.inputs[0], cat.inputs[1]
	if neg.op != backends.OpTypeNeg || x1.op != backends.OpTypeSlice {
		return nil
	}
	x2 := neg.inputs[0]
	if x2.op != backends.OpTypeSlice || x1.inputs[0] != x2.inputs[0] {
		return nil
	}
	x := x1.inputs[0]
	r := x.shape.Rank()
	d := x.shape.Dimensions[r-1]
	if cat.aux[0] != r-1 || d%2 != 0 || !halfSlice(x1, x.shape, 0) || !halfSlice(x2, x.shape, d/2) {
		return nil
	}
	return x
}

// halfSlice reports whether sl is x's elements from from to from+D/2 on
// the last axis, whole on the others, with unit steps.
func halfSlice(sl *node, xs shapes.Shape, from int) bool {
	r := xs.Rank()
	if len(sl.aux) != 2*r {
		return false
	}
	for ax, d := range xs.Dimensions {
		lo, hi := 0, d
		if ax == r-1 {
			lo, hi = from, from+d/2
		}
		if sl.aux[ax] != lo || sl.aux[r+ax] != hi {
			return false
		}
	}
	return true
}

// ropeTable reports whether a table of shape ts broadcasts over x's
// shape xs: float32, same rank, each axis xs's size or 1, the last whole.
func ropeTable(ts, xs shapes.Shape) bool {
	if ts.DType != dtypes.Float32 || ts.Rank() != xs.Rank() || ts.Dimensions[ts.Rank()-1] != xs.Dimensions[xs.Rank()-1] {
		return false
	}
	for ax, d := range ts.Dimensions {
		if d != 1 && d != xs.Dimensions[ax] {
			return false
		}
	}
	return true
}

// ropeRun computes the rotation of x (shape xs) by tables of shape ts, row
// (last axis) by row, rows in parallel.
//
//	out[i] = x[i]·cos[i] − x[i+D/2]·sin[i]   (i < D/2)
//	out[i] = x[i]·cos[i] + x[i−D/2]·sin[i]   (i ≥ D/2)
func ropeRun(xs, ts shapes.Shape) runFunc {
	r := xs.Rank()
	d := xs.Dimensions[r-1]
	// tst[ax]: the table's stride on x's leading axis ax (0 where it is
	// broadcast).
	tst := strides(ts.Dimensions)
	for ax, dim := range ts.Dimensions {
		if dim == 1 {
			tst[ax] = 0
		}
	}
	lead := xs.Dimensions[:r-1]
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		xf, cf, sf := in[0].flat.([]float32), in[1].flat.([]float32), in[2].flat.([]float32)
		o := x.alloc(xs, false)
		dst := o.flat.([]float32)
		rows := xs.Size() / d
		parallelRows(x, rows, xs.Size(), func(lo, hi int) {
			for row := lo; row < hi; row++ {
				t := 0
				for ax, rem := len(lead)-1, row; ax >= 0; ax-- {
					t += rem % lead[ax] * tst[ax]
					rem /= lead[ax]
				}
				rotateRow(dst[row*d:(row+1)*d], xf[row*d:(row+1)*d], cf[t:t+d], sf[t:t+d])
			}
		})
		return o, nil
	}
}

// rotateRow sets dst to the rotation of one row v by its tables c and s
// (all of one even length), each product rounded as the separate ops
// round it.
func rotateRow(dst, v, c, s []float32) {
	h := len(v) / 2
	lo, hi := v[:h], v[h:]
	for i := range h {
		dst[i] = float32(lo[i]*c[i]) + float32(-hi[i]*s[i])
		dst[h+i] = float32(hi[i]*c[h+i]) + float32(lo[i]*s[h+i])
	}
}
