package gocpu

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/goeval/goeval/internal/vmath"
)

// Softmax fusion. A float32 softmax over the last axis, as GoMLX's graph
// package writes it (attention's, models/nn):
//
//	m = Reshape(ReduceMax(x, last))   [..., 1]
//	e = Exp(Sub(x, m))                [..., S]
//	Div(e, Reshape(ReduceSum(e, last)))
//
// becomes one node reading x when Div is built: each row's max, its
// differences, their exponentials and sum, then the quotients — the
// separate ops' values, bit for bit (softmaxRow) — in one pass over a
// row that stays in cache, instead of five ops each writing or reading
// the whole [..., S] tensor. When x is Where(mask, z·scale, fill) —
// attention's scaled, masked scores — the node reads mask and z and
// builds each row of x itself (MaskedSoftmax), saving two more passes.
// The nodes of the chain stay in the graph; nothing needs them unless
// another node reads them (Executable.needed), so they do not run.

// fuseOps turns fusion on (tests compare with it off).
var fuseOps = true

// fuseSoftmax returns the fused node for Div(l, r) when l and r are the
// chain above, else nil.
func (b *Builder) fuseSoftmax(l, r backends.Op) *node {
	e, err1 := b.node(l, "Div")
	sum, err2 := b.node(r, "Div")
	if !fuseOps || err1 != nil || err2 != nil || b.compiled || e.op != backends.OpTypeExp {
		return nil
	}
	sub := e.inputs[0]
	if sub.op != backends.OpTypeSub || !reduceOfLast(sum, backends.OpTypeReduceSum, e) {
		return nil
	}
	x := sub.inputs[0]
	s := x.shape
	if s.DType != dtypes.Float32 || s.Rank() == 0 || !reduceOfLast(sub.inputs[1], backends.OpTypeReduceMax, x) {
		return nil
	}
	if in := maskedScaled(x); in != nil {
		n := b.newNode(backends.OpTypeDiv, e.shape, maskedSoftmaxRun(s), in...)
		n.fused = "MaskedSoftmax"
		return n
	}
	n := b.newNode(backends.OpTypeDiv, e.shape, softmaxRun(s), x)
	n.fused = "Softmax"
	return n
}

// maskedScaled matches x = Where(mask, Mul(z, scale), fill) with mask and
// z of x's shape and scale and fill scalars (attention's scaled, masked
// scores) and returns [mask, z, scale, fill]; else nil.
func maskedScaled(x *node) []*node {
	if x.op != backends.OpTypeWhere || !x.inputs[2].shape.IsScalar() || !x.inputs[0].shape.Equal(shapes.Make(dtypes.Bool, x.shape.Dimensions...)) {
		return nil
	}
	mul := x.inputs[1]
	if mul.op != backends.OpTypeMul {
		return nil
	}
	z, scale := mul.inputs[0], mul.inputs[1]
	if z.shape.IsScalar() {
		z, scale = scale, z // multiplication commutes: the same bits
	}
	if !scale.shape.IsScalar() || !z.shape.Equal(x.shape) {
		return nil
	}
	return []*node{x.inputs[0], z, scale, x.inputs[2]}
}

// reduceOfLast reports whether n is Reshape(op(x) over x's last axis) back
// to x's rank with the last axis 1.
func reduceOfLast(n *node, op backends.OpType, x *node) bool {
	if n.op != backends.OpTypeReshape || n.inputs[0].op != op {
		return false
	}
	red := n.inputs[0]
	if !red.lastAxis || red.inputs[0] != x || n.shape.Rank() != x.shape.Rank() {
		return false
	}
	d, xd := n.shape.Dimensions, x.shape.Dimensions
	return d[len(d)-1] == 1 && slices.Equal(d[:len(d)-1], xd[:len(xd)-1])
}

// softmaxRun computes the fused softmax of float32 x (shape s) over its
// last axis, rows in parallel.
func softmaxRun(s shapes.Shape) runFunc {
	dim := s.Dimensions[s.Rank()-1]
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		src := in[0].flat.([]float32)
		o := x.alloc(s, false)
		dst := o.flat.([]float32)
		if dim == 0 {
			return o, nil
		}
		rows := func(lo, hi int) { softmaxRange(dst, src, dim, lo, hi) }
		parallelRows(x, len(src)/dim, len(src), rows)
		return o, nil
	}
}

// maskedSoftmaxRun is softmaxRun of Where(mask, z·scale, fill), four rows
// at a time built in the output first (vmath.ScaleMask: mul32's product,
// then Where's choice).
func maskedSoftmaxRun(s shapes.Shape) runFunc {
	dim := s.Dimensions[s.Rank()-1]
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		mask, z := in[0].flat.([]bool), in[1].flat.([]float32)
		scale, fill := in[2].flat.([]float32)[0], in[3].flat.([]float32)[0]
		o := x.alloc(s, false)
		dst := o.flat.([]float32)
		if dim == 0 {
			return o, nil
		}
		rows := func(lo, hi int) {
			for i0 := lo; i0 < hi; i0 += 4 {
				i1 := min(i0+4, hi)
				vmath.ScaleMask(dst[i0*dim:i1*dim], z[i0*dim:i1*dim], mask[i0*dim:i1*dim], scale, fill)
				softmaxRange(dst, dst, dim, i0, i1)
			}
		}
		parallelRows(x, len(dst)/dim, len(dst), rows)
		return o, nil
	}
}

// softmaxRow is the chain on one row (d may be row): the row's maximum,
// then vmath.ExpShifted (sub32's difference, then vmath.Exp), ReduceSum's
// fold, and div32's quotient vectorised (vmath.DivScalar). The maximum is
// taken four lanes at a time (maxRow); it equals ReduceMax's fold but for
// the sign of a zero maximum, which no difference x − m can show (x − ±0
// differs only for x = ±0, and e^±0 = 1), so the bits are the chain's.
// The sum stays one fold in order: packed rows put a query's keys at
// other columns, with masked zeros between, and only a sequential sum
// gives them the unpacked row's bits.
func softmaxRow(d, row []float32) {
	m := maxRow(row)
	vmath.ExpShifted(d, row, m)
	sum := fold(d, 0, nil, backends.OpTypeReduceSum)
	vmath.DivScalar(d, d, sum)
}

// softmaxRange runs softmaxRow on rows [lo, hi) of dim elements (dst may
// be src), four rows at a time where it can: their sums are four chains in
// one loop (sum4), each in its own row's order, so softmaxRow's bits, with
// one chain's latency hidden behind the others'.
func softmaxRange(dst, src []float32, dim, lo, hi int) {
	i := lo
	for ; i+4 <= hi; i += 4 {
		for r := i; r < i+4; r++ {
			row := src[r*dim : (r+1)*dim]
			vmath.ExpShifted(dst[r*dim:(r+1)*dim], row, maxRow(row))
		}
		var s [4]float32
		s[0], s[1], s[2], s[3] = sum4(dst[i*dim:(i+4)*dim], dim)
		for r := range 4 {
			d := dst[(i+r)*dim : (i+r+1)*dim]
			vmath.DivScalar(d, d, s[r])
		}
	}
	for ; i < hi; i++ {
		softmaxRow(dst[i*dim:(i+1)*dim], src[i*dim:(i+1)*dim])
	}
}

// sum4 sums each of four consecutive rows of dim elements in d from +0 in
// order (ReduceSum's fold), the four chains interleaved.
func sum4(d []float32, dim int) (a, b, c, e float32) {
	r0, r1, r2, r3 := d[:dim], d[dim:2*dim], d[2*dim:3*dim], d[3*dim:4*dim]
	for k, v := range r0 {
		a += v
		b += r1[k]
		c += r2[k]
		e += r3[k]
	}
	return a, b, c, e
}

// maxRow is the maximum of row (−Inf for none), NaN if any element is.
func maxRow(row []float32) float32 {
	m0, m1, m2, m3 := lowest[float32](), lowest[float32](), lowest[float32](), lowest[float32]()
	i := 0
	for ; i+4 <= len(row); i += 4 {
		r := row[i : i+4 : i+4]
		m0, m1, m2, m3 = max(m0, r[0]), max(m1, r[1]), max(m2, r[2]), max(m3, r[3])
	}
	for ; i < len(row); i++ {
		m0 = max(m0, row[i])
	}
	return max(max(m0, m1), max(m2, m3))
}

// SwiGLU fusion. The gated unit of a Llama MLP, Mul(Mul(g, Logistic(g)),
// u) for float32 g and u of one shape (models/nn.SwiGLU), becomes one node
// reading g and u when the outer Mul is built: vmath.SwiGLU, σ(g) then
// (g·σ)·u with each product rounded — the separate ops' products in their
// order (multiplication commutes), same bits, without the two [..., F]
// intermediates.

// fuseSwiGLU returns the fused node for Mul(l, r) when one side is
// Mul(g, Logistic(g)) and the other u, all float32 of one shape; else nil.
func (b *Builder) fuseSwiGLU(l, r backends.Op) *node {
	ln, err1 := b.node(l, "Mul")
	rn, err2 := b.node(r, "Mul")
	if !fuseOps || err1 != nil || err2 != nil || b.compiled {
		return nil
	}
	gated, u := ln, rn
	if !isSiLU(gated) {
		gated, u = rn, ln
	}
	if !isSiLU(gated) || !u.shape.Equal(gated.shape) {
		return nil
	}
	g := gated.inputs[0]
	if gated.inputs[0].op == backends.OpTypeLogistic {
		g = gated.inputs[1]
	}
	n := b.newNode(backends.OpTypeMul, u.shape, swigluRun(u.shape), g, u)
	n.fused = "SwiGLU"
	return n
}

// isSiLU reports whether n is Mul(g, Logistic(g)) (either order) of
// float32 g.
func isSiLU(n *node) bool {
	if n.op != backends.OpTypeMul || n.shape.DType != dtypes.Float32 {
		return false
	}
	a, c := n.inputs[0], n.inputs[1]
	if a.op == backends.OpTypeLogistic {
		a, c = c, a
	}
	return c.op == backends.OpTypeLogistic && c.inputs[0] == a && a.shape.Equal(n.shape)
}

// swigluRun computes (g·σ(g))·u over shape s, chunks in parallel.
func swigluRun(s shapes.Shape) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		g, u := in[0].flat.([]float32), in[1].flat.([]float32)
		o := x.alloc(s, false)
		dst := o.flat.([]float32)
		parallel(x, len(dst), func(lo, hi int) {
			vmath.SwiGLU(dst[lo:hi], g[lo:hi], u[lo:hi])
		})
		return o, nil
	}
}
