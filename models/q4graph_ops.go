package models

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/nn"
)

// paramQ4 returns linear weight name, packed for the graph (q4graph.go),
// dequantized as [in, out] in the compute dtype — row j is input perm[j]
// where perm is not nil (desc_act), else input j — or nils where name is
// not held so.
func paramQ4(ctx *context.Context, g *Graph, name string) (wt, perm *Node) {
	return paramQ4After(ctx, g, name, nil)
}

// paramQ4After is paramQ4 with the dequantization made to wait for x
// (nil: none; afterInput).
func paramQ4After(ctx *context.Context, g *Graph, name string, x *Node) (wt, perm *Node) {
	scope, _ := VariablePath(name)
	node := func(v string) *Node {
		if variable := ctx.GetVariableByScopeAndName(scope, v); variable != nil {
			return variable.ValueGraph(g)
		}
		return nil
	}
	codes := node(q4CodesVar)
	if codes == nil {
		return nil, nil
	}
	scale := node(q4ScaleVar)
	if x != nil {
		scale = afterInput(x, scale)
	}
	w := dequantQ4(codes, scale, node(q4OffsetVar), node(q4TableVar))
	return q4Rounded(ctx, w), node(q4PermVar)
}

// isQ4Graph reports whether linear weight name is packed for the graph.
func isQ4Graph(ctx *context.Context, name string) bool {
	scope, _ := VariablePath(name)
	return ctx.GetVariableByScopeAndName(scope, q4CodesVar) != nil
}

// linearQ4 is x·Wᵀ (+ bias) for linear weight name packed for the graph:
// its weight dequantized as [in, out] and, with desc_act, x's columns
// gathered into the weight's row order first (the same products, summed
// in another order).
//
//	x [..., in], bias [out] or nil → [..., out]
func linearQ4(ctx *context.Context, x *Node, name string, bias *Node) *Node {
	wt, perm := paramQ4After(ctx, x.Graph(), name, x)
	if perm != nil {
		x = gatherLast(x, perm)
	}
	return nn.LinearT(x, wt, bias)
}

// afterInput returns s made to depend on x without changing a value: s
// where (x₀ = x₀ or x₀ ≠ x₀), true for every float x₀ (NaN included),
// else 0. Nothing else orders a weight's dequantization after its layer's
// input, and XLA's CPU scheduler ran them early: the 1B-shape prefill
// graph held every dequantized weight at once (a 3.9 GB temporary; 129 MB
// with this).
//
//	x [..., in], s [...] → s
func afterInput(x, s *Node) *Node {
	x0 := Reshape(Slice(Reshape(x, -1), AxisRange(0, 1))) // scalar
	always := LogicalOr(Equal(x0, x0), NotEqual(x0, x0))
	return Where(BroadcastToDims(always, s.Shape().Dimensions...), s, ZerosLike(s))
}

// unpackedQ4 returns linear weight name as [out, in] where it is packed
// for the graph (its rows put back in input order), else nil: Param's
// form, for a use other than linear's product.
func unpackedQ4(ctx *context.Context, g *Graph, name string) *Node {
	wt, perm := paramQ4(ctx, g, name)
	if wt == nil {
		return nil
	}
	if perm != nil {
		scope, _ := VariablePath(name)
		unperm := ctx.GetVariableByScopeAndName(scope, q4UnpermVar).ValueGraph(g)
		wt = Gather(wt, InsertAxes(unperm, -1)) // [in, out], input order
	}
	return Transpose(wt, 0, 1)
}

// dequantQ4 is the weight of codes in float32, each value
//
//	table[q]·scale (+ offset)
//
// rounded once per operation in float32, as Q4Weight's dequantization
// (and so the dequantizing load) computes it: the product of two float32
// is the same rounded value however XLA emits it, and where an offset is
// added (GPTQ/AWQ) the product q·scale is exact (GroupQuant.Q4), so a
// fused multiply-add rounds the same sum. A nil table is the code itself
// (0…15, exact in float32).
//
//	codes uint8 [in/2, out], scale and offset float32 [in/B, out],
//	table float32 [16] or nil → [in, out]
func dequantQ4(codes, scale, offset, table *Node) *Node {
	half, out := codes.Shape().Dim(0), codes.Shape().Dim(1)
	in, blocks := 2*half, scale.Shape().Dim(0)
	sixteen := Scalar(codes.Graph(), dtypes.Uint8, 16)
	hi := Div(codes, sixteen)                        // [in/2, out]: inputs 2p (codes >> 4)
	lo := Sub(codes, Mul(hi, sixteen))               // [in/2, out]: inputs 2p+1 (codes & 15)
	q := Reshape(Stack([]*Node{hi, lo}, 1), in, out) // [in, out]
	var v *Node
	if table == nil {
		v = ConvertDType(q, dtypes.Float32)
	} else {
		idx := InsertAxes(ConvertDType(q, dtypes.Int32), -1)     // [in, out, 1]
		v = Reshape(Gather(Reshape(table, 16, 1), idx), in, out) // [in, out]
	}
	perBlock := func(s *Node) *Node { return BroadcastToDims(InsertAxes(s, 1), blocks, in/blocks, out) }
	v = Mul(Reshape(v, blocks, in/blocks, out), perBlock(scale)) // [in/B, B, out]
	if offset != nil {
		v = Add(v, perBlock(offset))
	}
	return Reshape(v, in, out)
}

// q4Rounded is w (float32) rounded to the dtype the dequantizing load
// holds the weight in (to nearest, ties to even, as XLA converts), then
// converted to the compute dtype: the values the dense path multiplies
// by. (GoMLX's simplego truncates to bfloat16; no 4-bit weight is packed
// for the graph there.)
func q4Rounded(ctx *context.Context, w *Node) *Node {
	root := ctx.InAbsPath("/")
	for _, p := range []string{q4HeldParam, q4ComputeParam} {
		dt, err := dtypes.DTypeString(context.GetParamOr(root, p, ""))
		if err == nil && dt != w.DType() {
			w = ConvertDType(w, dt)
		}
	}
	return w
}
