package plan

import "slices"

// Packing (Options.Pack): the call's log-likelihood items form a prefix
// tree over their inputs (trie.go) — a few-shot prefix shared by every
// question of a task, then each question's context, then each answer —
// and each distinct prefix is computed once per packed row for everything
// below it in that row. Rows of 256/512/1024/2048 tokens
// (DefaultRowLengths) take the tree's leaves in depth-first order (next
// fit): a leaf adds only the nodes of its path not yet in the row, so a
// row starts with the shared prefix once and then holds as many documents
// as fit. The row length is the one with the lowest estimated cost (linear
// maps plus attention over the row's keys) for the model. A
// multiple-choice question then costs its context once, a 5-shot prompt
// its examples once per row, and rows are mostly real tokens. Each token
// keeps its unpacked position (a node continues from its parent's end, so
// RoPE and the sliding window see what the unpacked row sees), and the
// mask (models.Inputs.Packing) lets a token see only its own node and its
// ancestors.
//
// Layout of a node covering unpacked positions [a, b) with alignment 8
// (Options.Align; 1 lays nodes out unaligned), with ⌊x⌋ = ⌊x/8⌋·8:
// an inner node lays out [⌊a⌋, ⌊b⌋), a leaf [⌊a⌋, b) padded to a multiple
// of 8. So every node starts at a multiple of 8 in its row, and the ids
// [⌊a⌋, a) — the tail of its ancestors that they did not lay out — are
// repeated in every child:
//
//	[prefix[0:⌊p⌋] | prefix[⌊p⌋:p] q₁[…] … | prefix[⌊p⌋:p] q₂[…] … | …]
//	  shared node     child 1 (8-aligned)      child 2 (8-aligned)
//
// Each key then sits at the same offset modulo 8 as in its unpacked row and
// shares a group of 8 only with the keys it shares it with there. The
// GoMLX simplego backend sums attention's probs·V contraction in aligned
// groups of 8 (its DotGeneral kernels, both sizes), and masked keys add
// exact zeros, so a packed token's attention output has the bits of its
// unpacked one and packed scores are bit-identical to unpacked ones
// (engine's pack_test.go); goeval's own pure-Go backend is bit-identical
// unaligned. XLA orders its sums its own way: there packing changes scores
// by float rounding only (≈1e-7).
//
// A leaf whose path is longer than the largest row (max_length over 2048)
// is scored in an unpacked row.

// packRow is one packed row: trie nodes in preorder and the tokens they
// take.
type packRow struct {
	nodes  []int
	used   int
	prefix int // the cached prefix node the row attends to (0: none; prefix.go)
}

// packBatch is one forward pass of packed rows of equal length T.
type packBatch struct {
	B, T, K int
	rows    []packRow
	real    int // tokens laid out (not padding)
}

// packPlan is the packed part of a plan.
type packPlan struct {
	trie    *packTrie
	batches []packBatch
	cached  []int // cached prefix nodes (prefix.go)
	pb      int   // their padded length, one for all
}

// compareItems orders items by input, then targets.
func compareItems(a, b Item) int {
	if c := slices.Compare(a.Input, b.Input); c != 0 {
		return c
	}
	return slices.Compare(a.Targets, b.Targets)
}

// planPacked packs the non-empty items among cand into batches of at most
// o.BatchSize rows (fewer for long rows: passRows), trying each row
// length; rest are the items to score unpacked. o.AttnKeys weighs
// attention against linear maps (rowCost); o.Align is the node alignment;
// o.Prefixes, when not nil, lets rows attend to cached prefixes
// (prefix.go).
func planPacked(items []Item, cand []int, o Options, lengths []int) (plan packPlan, rest []int) {
	var members []int
	for _, i := range cand {
		if len(items[i].Targets) > 0 {
			members = append(members, i)
		}
	}
	if len(members) == 0 {
		return plan, nil
	}
	tr := buildTrie(items, members, o.Align)
	sr, rule := o.Shapes, o.Prefixes
	var rows []packRow
	best, capacity := -1.0, 0
	largest := lengths[len(lengths)-1]
	for _, c := range lengths {
		r, unpacked := tr.packRows(c, nil)
		// Items left unpacked at the largest length are unpacked at every
		// length; a shorter one is a candidate only if it packs everything.
		if len(unpacked) > 0 && c != largest {
			continue
		}
		cost := 0.0
		for _, row := range r {
			cost += rowCost(sr.T(row.used, c), o.AttnKeys)
		}
		if best < 0 || cost < best {
			best, rows, rest, capacity, plan.cached = cost, r, unpacked, c, nil
		}
		if rule == nil {
			continue
		}
		top, cached := tr.cachedNodes(items, r, *rule)
		if len(cached) == 0 {
			continue
		}
		r, unpacked = tr.packRows(c, top)
		if cost := tr.planCost(r, cached, c, o.AttnKeys, sr, *rule); cost < best {
			best, rows, rest, capacity, plan.cached = cost, r, unpacked, c, cached
		}
	}
	plan.trie = tr
	for _, n := range plan.cached {
		plan.pb = max(plan.pb, rule.Slots(tr.prefixLen(n)))
	}
	plan.batches = cutBatches(tr, items, rows, capacity, o.BatchSize, sr)
	if o.Uniform > 0 && !sr.Exact && len(plan.cached) == 0 {
		plan.batches = uniformPacked(tr, items, plan.batches, o.BatchSize, o.Uniform)
	}
	return plan, rest
}

// rowCost estimates a forward over a row of t tokens in units of one
// token's linear maps: each token also attends to all t keys, which costs
// t/attnKeys of its linear maps.
func rowCost(t, attnKeys int) float64 {
	return float64(t) * (1 + float64(t)/float64(max(attnKeys, 1)))
}

// cutBatches sorts rows longest first (stable: depth-first order) and cuts
// them into passes of equal T; with exact shapes, into passes as long as
// their first (longest) row.
func cutBatches(tr *packTrie, items []Item, rows []packRow, capacity, batchSize int, sr Shapes) []packBatch {
	rowT := func(r packRow) int { return sr.T(r.used, capacity) }
	slices.SortStableFunc(rows, func(a, b packRow) int {
		if sr.Exact {
			return b.used - a.used
		}
		return rowT(b) - rowT(a)
	})
	var out []packBatch
	for start := 0; start < len(rows); {
		t := rowT(rows[start])
		end := start
		rowCap := passRows(t, batchSize)
		for end < len(rows) && end-start < rowCap && (sr.Exact || rowT(rows[end]) == t) {
			end++
		}
		k, real := 0, 0
		for _, r := range rows[start:end] {
			rk, rr := tr.rowCounts(items, r)
			k, real = k+rk, real+rr
		}
		out = append(out, packBatch{B: sr.B(end-start, rowCap), T: t, K: sr.K(k), rows: rows[start:end], real: real})
		start = end
	}
	return out
}

// rowCounts are the slots (its items' targets) and the tokens of a
// packed row.
func (tr *packTrie) rowCounts(items []Item, r packRow) (k, real int) {
	for _, n := range r.nodes {
		from, to := tr.span(n)
		real += to - from
		if tr.leaf(n) {
			for _, i := range tr.nodes[n].items {
				k += len(items[i].Targets)
			}
		}
	}
	return k, real
}

// layout lays out the rows of pass p. Padding is node 0 (end 1) at
// position 0: it sees only padding, so every query sees at least one key.
func (pl *packPlan) layout(items []Item, p *Pass) *Layout {
	l := newLayout(p.Kind, p.B, p.T, p.K, pl.pb)
	for r, row := range p.rows {
		pl.layoutRow(l, items, row, r)
	}
	return l
}

// layoutRow writes row to row r of p: each node's ids from the first
// column after the previous node, numbered 1, 2, … in preorder with the
// end of its subtree; then the slots of the row's leaves' items.
func (pl *packPlan) layoutRow(p *Layout, items []Item, row packRow, r int) {
	tr := pl.trie
	ends := tr.rowEnds(row.nodes)
	col := make(map[int]int, len(row.nodes)) // node → its first column
	off := 0
	for k, n := range row.nodes {
		from, to := tr.span(n)
		inp := items[tr.nodes[n].rep].Input
		for q := from; q < to; q++ {
			x := r*p.T + off + q - from
			p.Tokens[x], p.Positions[x] = inp[q], int32(q)
			p.Node[x], p.End[x] = int32(k+1), int32(ends[k])
		}
		p.Real += to - from
		col[n] = off
		off += tr.size(n)
	}
	for _, n := range row.nodes {
		if !tr.leaf(n) {
			continue
		}
		for _, idx := range tr.nodes[n].items {
			it := items[idx]
			m, c := len(it.Input), len(it.Targets)
			for j := range c {
				q := m - c + j // position whose hidden state scores target j
				at := tr.owner(n, q)
				p.addSlot(r, col[at]+q-tr.down(tr.nodes[at].start), it.Targets[j], idx)
			}
		}
	}
}

// Dims are the model dimensions the cost model reads (config.json's).
type Dims struct{ Hidden, Heads, KVHeads, HeadDim, Intermediate int }

// AttnKeys is the number of keys at which a token's attention (q·k and
// p·v over every key: 4·heads·head_dim FLOPs per key and layer, at about
// half the efficiency of the linear maps: masks, softmax, small products)
// costs as much as its linear maps (q, k, v, o and the gated MLP). The
// factor 2 is measured: hellaswag + arc_challenge at Qwen2.5-0.5B's shape
// on XLA CPU took 33 s in rows of 512, 36 s in 1024 and 43 s in 2048
// (compiles aside), where the FLOP count alone predicts +19 % for 2048.
func (c Dims) AttnKeys() int {
	h, heads, kv := c.Hidden, max(c.Heads, 1), c.KVHeads
	d := c.HeadDim
	if d == 0 {
		d = h / heads
	}
	if kv == 0 {
		kv = heads
	}
	linear := 2 * (h*(heads+2*kv)*d + heads*d*h + 3*h*c.Intermediate)
	return max(1, linear/(2*4*heads*d))
}

// packedPass is the Pass of packed batch b: After when its rows attend
// to cached prefixes, with their ids in first-row order.
func (pl *Plan) packedPass(b packBatch) Pass {
	p := Pass{B: b.B, T: b.T, K: b.K, Kind: Packed, Real: b.real, plan: pl, rows: b.rows}
	seen := map[int]bool{}
	tr := pl.packed.trie
	for _, r := range b.rows {
		if r.prefix != 0 && !seen[r.prefix] {
			seen[r.prefix] = true
			p.Prefixes = append(p.Prefixes, pl.Items[tr.nodes[r.prefix].rep].Input[:tr.prefixLen(r.prefix)])
		}
	}
	if len(p.Prefixes) > 0 {
		p.Kind = After
	}
	return p
}
