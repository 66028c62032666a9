package nn

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// MoE is a sparse mixture-of-experts MLP (Mixtral, Qwen-MoE, OLMoE): each
// token goes through the K experts its router chose, and the experts'
// outputs, weighted by the router, are summed. Graph shapes are static, so
// the tokens routed to each expert, whose number is data, are handled in
// one of two layouts, chosen by shape alone (groupedAt):
//
//   - direct (few tokens per expert: decode, small passes): every expert
//     runs on every token with its weights read in place, E products of
//     [N, H] rows; a token then reads its K experts' rows. Compute is E/K
//     times what the routing needs, memory traffic one read of the
//     experts' weights, which at a few rows is the cost anyway.
//   - grouped (moe_grouped.go): the N·K token-slots are sorted by expert into
//     tiles of Tm rows, each tile one expert's; per tile one product with
//     that expert's weights, gathered. The tile count is the worst case
//     over all routings (never exceeded), so shapes are static and each
//     routed slot is computed once, plus at most Tm−1 padding rows per
//     expert.
//
// Both compute every routed (token, expert) row by the same dot products
// over H and F (the pure-Go backend's products give a row's bits
// independently of the other rows and of the row count), and the K rows of
// a token are summed in the router's order, so a token's result does not
// depend on the other tokens of the pass, on the layout chosen, nor on how
// tokens are packed.
type MoE struct {
	// Experts is the number of experts, E.
	Experts int
	// Expert is expert e on rows x [R, H] → [R, H], reading its weights in
	// place (the direct layout): Down(Unit(Gate·x, Up·x)).
	Expert func(e int, x *Node) *Node
	// Stacked, if not nil, returns the experts' weights stacked in Linear
	// layout — gate and up [E, F, H], down [E, H, F] — for the grouped
	// layout (nil: always direct).
	Stacked func() (gate, up, down *Node)
	// Unit is the gated unit (SwiGLU) the experts apply.
	Unit func(gate, up *Node) *Node
}

// Apply routes x through the experts: experts [N, K] int32 are each
// token's experts, weights [N, K] their weights. With weights in another
// dtype than x's (Mixtral's float32 router weights), the weighted sum is
// in the weights' dtype and converted to x's.
//
//	x [N, H], experts [N, K] int32, weights [N, K] → [N, H]
func (m MoE) Apply(x, experts, weights *Node) *Node {
	n, h, k := x.Shape().Dim(0), x.Shape().Dim(1), experts.Shape().Dim(1)
	var y, rows *Node // y [R, H]: expert rows; rows [N, K]: each slot's row of y
	if m.Stacked != nil && groupedAt(n*k, m.Experts) {
		y, rows = m.grouped(x, experts)
	} else {
		y, rows = m.direct(x, experts)
	}
	picked := Gather(y, Reshape(rows, n, k, 1)) // [N, K, H]
	dt := x.DType()
	if weights.DType() != dt {
		picked = ConvertDType(picked, weights.DType())
	}
	out := ReduceSum(Mul(picked, BroadcastToDims(Reshape(weights, n, k, 1), n, k, h)), 1)
	return ConvertDType(out, dt)
}

// direct runs every expert on every token: y [E·N, H] (expert e's rows
// from e·N), and slot (n, k) reads row experts[n, k]·N + n.
func (m MoE) direct(x, experts *Node) (y, rows *Node) {
	n, k := x.Shape().Dim(0), experts.Shape().Dim(1)
	outs := make([]*Node, m.Experts)
	for e := range outs {
		outs[e] = m.Expert(e, x) // [N, H]
	}
	y = outs[0]
	if len(outs) > 1 {
		y = Concatenate(outs, 0)
	}
	tok := Iota(x.Graph(), shapes.Make(dtypes.Int32, n, k), 0)
	return y, Add(MulScalar(experts, n), tok)
}

// groupedMinSlots is the average number of token-slots per expert from
// which the grouped layout is used: below it, the direct layout's E
// products over all N rows, with the weights read in place, cost less than
// stacking and gathering the experts' weights per tile (measured on the
// pure-Go backend, 64 experts, top 8: equal at 32 slots per expert, the
// grouped layout 1.4× faster at 64 and 2× at 128).
const groupedMinSlots = 32

// groupedAt reports whether s token-slots over e experts take the grouped
// layout.
func groupedAt(s, e int) bool { return s >= groupedMinSlots*e }

// TopK returns the k largest values of x along its last axis, in
// descending order, and their indices (ties: the lowest index first), by
// k rounds of ArgMax, each masking the chosen entry.
//
//	x [N, E] → values [N, k] (x's dtype), indices [N, k] int32
func TopK(x *Node, k int) (values, indices *Node) {
	n, e := x.Shape().Dim(0), x.Shape().Dim(1)
	if k < 1 || k > e {
		panicf("TopK: k = %d for %d entries", k, e)
	}
	g := x.Graph()
	cols := Iota(g, shapes.Make(dtypes.Int32, n, e), 1)
	gone := BroadcastToDims(Scalar(g, x.DType(), math.Inf(-1)), n, e)
	vals, idxs := make([]*Node, k), make([]*Node, k)
	for i := range k {
		idxs[i] = ArgMax(x, -1, dtypes.Int32) // [N]
		hit := Equal(cols, BroadcastToDims(Reshape(idxs[i], n, 1), n, e))
		vals[i] = ReduceMax(Where(hit, x, gone), -1)
		x = Where(hit, gone, x)
	}
	return Stack(vals, 1), Stack(idxs, 1)
}
