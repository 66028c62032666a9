package nn

import (
	"math"
	"math/bits"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// The grouped layout of MoE. With S = N·K token-slots over E experts and
// tiles of Tm rows (tileRows), expert e with c_e slots takes ⌈c_e/Tm⌉
// consecutive tiles, experts in order, its slots in token order. Σ⌈c_e/Tm⌉ ≤ (S + min(E, S)·(Tm−1))/Tm for every routing, so that
// many tiles (and never more than S) always suffice: the graph's shape is
// the worst case, never a guess that could overflow and drop tokens.
//
// The sort uses only gathers, compares and adds (the pure-Go backend has
// no sort or scatter): a prefix count over the tokens of which expert each
// chose — incl[n, e], tokens ≤ n routed to e — gives each slot its rank in
// its expert and each expert its count; each tile row (expert e, rank j)
// finds its token by binary search for the first n with incl[n, e] > j.
// Then per tile: the rows gathered [Tm, H], the tile's expert's weights
// gathered from the stacked ones, and the same products as the direct
// layout (tiles as a batch axis). Slot (n, k) reads back the row of its
// expert's tile range at its rank.
//
// Cost, against the S routed rows' products: the worst-case tile count is
// always computed, so up to E·(Tm−1) padding rows; the experts' weights
// stacked once per pass and gathered (and packed by the backend) once per
// tile, S/Tm + E tiles; ⌈log₂N⌉ shifted adds over [N, E] (the prefix
// count) and ⌈log₂N⌉ gather steps over the tiles' rows (the search), in
// integers. On the pure-Go backend (qwen3moe, hidden 512, 64 experts
// of 256, top 8, 2 layers, 64-token rows), a pass of 1024 tokens took 0.54–
// 0.66 s grouped against 1.06 s direct, 4096 tokens 0.93–1.5 s against
// 3.4 s; at 256 tokens the two were even, at 64 the direct layout was 2.3×
// faster (hence groupedMinSlots).

// maxTileRows bounds Tm: beyond it, more tiles per expert cost little
// (each tile's products are large enough), and the padding grows with Tm.
const maxTileRows = 256

// maxGatherElems bounds the gathered expert weights of one batch of tiles
// (gate, up and down together, elements): tiles run in batches under it.
const maxGatherElems = 1 << 25

// tileRows is Tm for s slots over e experts: the power of two nearest
// below √(128·s/e), in [1, maxTileRows]. Each tile costs a gather of its
// expert's weights (about as much as 128 rows of its products on the
// pure-Go backend) and there are up to s/Tm + e of them, so the total,
// (s/Tm + e)·(128 + Tm) row-equivalents, is least near Tm = √(128·s/e).
func tileRows(s, e int) int {
	best := int(math.Sqrt(128 * float64(s) / float64(e)))
	return min(maxTileRows, 1<<(bits.Len(uint(max(best, 1)))-1))
}

// grouped runs the experts on their routed slots, sorted into tiles:
// y [tiles·Tm, H], rows [N, K] each slot's row of y.
func (m MoE) grouped(x, experts *Node) (y, rows *Node) {
	g := x.Graph()
	n, k, e := x.Shape().Dim(0), experts.Shape().Dim(1), m.Experts
	s := n * k
	tm := tileRows(s, e)
	mt := min(s, (s+min(e, s)*(tm-1))/tm)
	// chose[n, e]: token n routed to expert e (once at most), as 0/1.
	chose := ReduceSum(ConvertDType(Equal(BroadcastToDims(Reshape(experts, n, k, 1), n, k, e),
		Iota(g, shapes.Make(dtypes.Int32, n, k, e), 2)), dtypes.Int32), 1) // [N, E]
	incl := prefixSum(chose)                            // [N, E]
	count := Reshape(Slice(incl, AxisRange(n-1, n)), e) // [E]
	tiles := DivScalar(AddScalar(count, tm-1), tm)      // [E]
	end := Reshape(prefixSum(Reshape(tiles, e, 1)), e)  // [E]: one past each expert's last tile
	start := Sub(end, tiles)                            // [E]
	tile := Iota(g, shapes.Make(dtypes.Int32, mt), 0)
	// A tile's expert: the number of experts whose tiles end at or before
	// it (unused tiles past the last: E, taken as E−1; never read back).
	tileExpert := ReduceSum(ConvertDType(LessOrEqual(BroadcastToDims(Reshape(end, 1, e), mt, e),
		BroadcastToDims(Reshape(tile, mt, 1), mt, e)), dtypes.Int32), 1)
	tileExpert = MinScalar(tileExpert, int32(e-1)) // [Mt]
	first := MulScalar(Sub(tile, Gather(start, Reshape(tileExpert, mt, 1))), tm)
	rank := Add(BroadcastToDims(Reshape(first, mt, 1), mt, tm), Iota(g, shapes.Make(dtypes.Int32, mt, tm), 1))
	src := findRank(incl, BroadcastToDims(Reshape(tileExpert, mt, 1), mt, tm), rank) // [Mt, Tm] tokens
	xs := Reshape(Gather(x, Reshape(src, mt*tm, 1)), mt, tm, x.Shape().Dim(1))       // [Mt, Tm, H]
	y = Reshape(m.tileProducts(xs, tileExpert), mt*tm, x.Shape().Dim(1))
	// Slot (n, k) of expert ex: row start[ex]·Tm + incl[n, ex] − 1.
	tok := Iota(g, shapes.Make(dtypes.Int32, n, k), 0)
	at := Gather(incl, Stack([]*Node{tok, experts}, -1)) // [N, K]
	base := Reshape(Gather(start, Reshape(experts, n*k, 1)), n, k)
	return y, Add(MulScalar(base, tm), AddScalar(at, -1))
}

// tileProducts runs each tile's expert on its rows, in batches of tiles
// whose gathered weights stay under maxGatherElems.
//
//	xs [Mt, Tm, H], tileExpert [Mt] int32 → [Mt, Tm, H]
func (m MoE) tileProducts(xs, tileExpert *Node) *Node {
	gate, up, down := m.Stacked() // [E, F, H], [E, F, H], [E, H, F]
	mt := xs.Shape().Dim(0)
	f, h := gate.Shape().Dim(1), gate.Shape().Dim(2)
	batch := max(1, maxGatherElems/(3*f*h))
	var outs []*Node
	for lo := 0; lo < mt; lo += batch {
		hi := min(mt, lo+batch)
		at := Reshape(Slice(tileExpert, AxisRange(lo, hi)), hi-lo, 1)
		rows := Slice(xs, AxisRange(lo, hi))
		wg, wu, wd := Gather(gate, at), Gather(up, at), Gather(down, at)
		hg := DotGeneral(rows, []int{2}, []int{0}, wg, []int{2}, []int{0}) // [b, Tm, F]
		hu := DotGeneral(rows, []int{2}, []int{0}, wu, []int{2}, []int{0})
		outs = append(outs, DotGeneral(m.Unit(hg, hu), []int{2}, []int{0}, wd, []int{2}, []int{0})) // [b, Tm, H]
	}
	if len(outs) == 1 {
		return outs[0]
	}
	return Concatenate(outs, 0)
}

// prefixSum is the inclusive prefix sum of x along axis 0, in ⌈log₂L⌉
// shifted adds (exact in integers).
//
//	x [L, C] → [L, C]
func prefixSum(x *Node) *Node {
	l, c := x.Shape().Dim(0), x.Shape().Dim(1)
	for d := 1; d < l; d *= 2 {
		shifted := Concatenate([]*Node{Zeros(x.Graph(), shapes.Make(x.DType(), d, c)), Slice(x, AxisRange(0, l-d))}, 0)
		x = Add(x, shifted)
	}
	return x
}

// findRank returns, for each (expert, rank) pair, the first token n with
// incl[n, expert] > rank, by binary search over n (N−1 where none is).
//
//	incl [N, E], expert, rank [...] int32 → [...] int32
func findRank(incl, expert, rank *Node) *Node {
	n := incl.Shape().Dim(0)
	lo := ZerosLike(rank)
	hi := AddScalar(ZerosLike(rank), n-1)
	for range bits.Len(uint(n)) {
		mid := DivScalar(Add(lo, hi), 2)
		found := GreaterThan(Gather(incl, Stack([]*Node{mid, expert}, -1)), rank)
		hi = Where(found, mid, hi)
		lo = Where(found, lo, MinScalar(AddScalar(mid, 1), int32(n-1)))
	}
	return lo
}
