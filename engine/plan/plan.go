// Package plan plans how a scoring call's requests run as forward passes:
// each distinct request once; requests packed into rows over a prefix tree
// of their inputs, a shared prefix computed once per row (pack.go,
// trie.go), or once for every row below it when it is cached (prefix.go);
// the rest one per right-padded row (rows.go); every pass in a bucketed or
// exact shape (shapes.go). It links no GoMLX: the engine calls New once
// per call, converts each pass's Layout to tensors and runs its graphs.
package plan

// Item is one scoring request: input tokens, and the targets that its
// last len(Targets) positions score (the token after each).
type Item struct{ Input, Targets []int32 }

// Options are what New plans for.
type Options struct {
	// BatchSize is the most rows a pass takes (fewer for long rows: B·T
	// stays within 4096 tokens unless one row is longer).
	BatchSize int
	// MaxLen is max_length: unpacked rows' length bucket is capped at it.
	MaxLen int
	// Shapes is how pass dimensions are rounded.
	Shapes Shapes
	// Pack packs items into rows over a prefix tree (pack.go); false puts
	// each item in a row of its own.
	Pack bool
	// Align is the alignment of nodes in a packed row (1: none; 8 on
	// GoMLX's simplego, whose dot products sum in groups of 8: pack.go).
	Align int
	// AttnKeys is the number of keys at which a token's attention costs as
	// much as its linear maps (Dims.AttnKeys): the cost model choosing the
	// packed row length.
	AttnKeys int
	// RowLengths are the packed row capacities tried (nil:
	// DefaultRowLengths).
	RowLengths []int
	// Prefixes, when not nil, lets packed rows attend to cached prefixes
	// (prefix.go).
	Prefixes *PrefixRule
	// MaxPackedInput, when above 0, keeps items whose input is longer out
	// of packed rows (LongRoPE models: a row's longest document would set
	// the rotary factors of every document in it; models.Inputs.RowLen).
	MaxPackedInput int
	// Uniform, when above 0, gives the call's packed passes one shape and
	// its unpacked passes one where that adds at most this fraction of
	// the tokens they run otherwise (uniform.go); not with Shapes.Exact
	// or cached prefixes.
	Uniform float64
}

// DefaultRowLengths are the packed row capacities a plan chooses from;
// rows left partly empty are shortened to their length bucket.
var DefaultRowLengths = []int{256, 512, 1024, 2048}

// Plan is a scoring call's passes.
type Plan struct {
	// Items are the call's distinct items, in first-seen order; passes'
	// slots name them by index.
	Items []Item
	// Index is, per item given to New, its index in Items.
	Index []int
	// Passes are the forward passes to run: packed ones first, in order.
	Passes []Pass
	// PrefixSlots (Pb) is the padded length of every cached prefix (0:
	// none).
	PrefixSlots int
	packed      packPlan
}

// Kind is the kind of rows a pass holds.
type Kind int

const (
	// Unpacked rows hold one right-padded item each, at positions 0…T-1.
	Unpacked Kind = iota
	// Packed rows hold prefix-tree nodes (Layout.Positions, Node, End).
	Packed
	// After rows are packed rows after cached prefixes (Layout.PrefixPos,
	// RowPrefix; Pass.Prefixes).
	After
)

// Pass is one forward pass: B rows of T tokens, K scored slots.
type Pass struct {
	B, T, K int
	Kind    Kind
	// Real is the tokens laid out (not padding).
	Real int
	// Prefixes (After only) are the ids of the distinct cached prefixes
	// the rows attend to, in the order Layout.RowPrefix numbers them.
	Prefixes [][]int32
	plan     *Plan
	items    []int     // Unpacked: each row's item
	rows     []packRow // Packed, After
}

// New plans the scoring of items: duplicates once, packed (o.Pack) where
// a row holds an item's input, the rest one item per row. Items without
// targets are in no pass.
func New(items []Item, o Options) *Plan {
	uniq, index := dedup(items)
	pl := &Plan{Items: uniq, Index: index}
	rest := make([]int, len(uniq))
	for i := range rest {
		rest[i] = i
	}
	if o.Pack {
		lengths := o.RowLengths
		if lengths == nil {
			lengths = DefaultRowLengths
		}
		var long []int // past MaxPackedInput: unpacked
		if o.MaxPackedInput > 0 {
			rest, long = splitLong(uniq, rest, o.MaxPackedInput)
		}
		pl.packed, rest = planPacked(uniq, rest, o, lengths)
		rest = append(rest, long...)
		pl.PrefixSlots = pl.packed.pb
		for _, b := range pl.packed.batches {
			pl.Passes = append(pl.Passes, pl.packedPass(b))
		}
	}
	batches := planBatches(uniq, rest, o.BatchSize, o.MaxLen, o.Shapes)
	if o.Uniform > 0 && !o.Shapes.Exact {
		batches = uniformUnpacked(uniq, batches, o.BatchSize, o.Uniform)
	}
	for _, b := range batches {
		p := Pass{B: b.B, T: b.T, K: b.K, Kind: Unpacked, plan: pl, items: b.rows}
		for _, i := range b.rows {
			p.Real += len(uniq[i].Input)
		}
		pl.Passes = append(pl.Passes, p)
	}
	return pl
}

// Tokens is the real tokens the plan runs: every pass's, and each cached
// prefix once.
func (pl *Plan) Tokens() int {
	n := pl.packed.prefixTokens()
	for _, p := range pl.Passes {
		n += p.Real
	}
	return n
}

// Layout lays the pass out: its token ids, positions and scored slots.
func (p *Pass) Layout() *Layout {
	if p.Kind == Unpacked {
		return unpackedLayout(p.plan.Items, p)
	}
	l := p.plan.packed.layout(p.plan.Items, p)
	if p.Kind == After {
		p.plan.packed.layoutPrefixes(l, p)
	}
	return l
}

// Blank is a layout of the pass's shapes with zero values (every slot
// unused), for compiling its graph ahead.
func (p *Pass) Blank() *Layout {
	return newLayout(p.Kind, p.B, p.T, p.K, p.plan.PrefixSlots)
}

// ItemIndices are the items (indices into Plan.Items) whose slots the
// pass holds: every slot of an item is in one row of one pass.
func (p *Pass) ItemIndices() []int {
	if p.Kind == Unpacked {
		return append([]int(nil), p.items...)
	}
	tr := p.plan.packed.trie
	var out []int
	for _, r := range p.rows {
		for _, n := range r.nodes {
			if tr.leaf(n) {
				out = append(out, tr.nodes[n].items...)
			}
		}
	}
	return out
}

// splitLong splits items (indices into all) into those whose input holds
// at most n tokens and the longer ones.
func splitLong(all []Item, items []int, n int) (short, long []int) {
	for _, i := range items {
		if len(all[i].Input) > n {
			long = append(long, i)
		} else {
			short = append(short, i)
		}
	}
	return short, long
}
