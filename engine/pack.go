package engine

import (
	"encoding/binary"
	"slices"
)

// Packing (Options.Packing, on by default): requests whose rows share the
// scored prefix (the context ids up to the token that predicts the first
// continuation token, as lm-eval's _encode_pair splits them) form a tree —
// the prefix once, then each continuation as its own branch — and trees
// are packed first-fit-decreasing into rows of up to 256/512/1024/2048
// tokens. A multiple-choice question then costs its context once and rows
// are mostly real tokens. Each token keeps its unpacked position (a branch
// continues from the prefix's end, so RoPE and the sliding window see what
// the unpacked row sees), and the mask (models.Model.HiddenPacked) lets a
// token see only its own tree's prefix and its own branch.
//
// Layout of a tree whose prefix has p tokens, with s = ⌊p/8⌋·8:
//
//	[prefix[0:s] | prefix[s:p] cont₁[:-1] pad | prefix[s:p] cont₂[:-1] pad | …]
//	  branch 0      branch 1 (8-aligned)         branch 2 (8-aligned)
//
// Trees start at multiples of 8 in their row. The prefix's last partial
// group of 8 is repeated in every branch so that each key sits at the same
// offset modulo 8 as in its unpacked row and shares a group of 8 only with
// the keys it shares it with there. The pure-Go backend sums attention's
// probs·V contraction in aligned groups of 8 (its DotGeneral kernels, both
// sizes), and masked keys add exact zeros, so a packed token's attention
// output has the bits of its unpacked one and packed scores are
// bit-identical to unpacked ones (pack_test.go). Other backends (XLA)
// order their sums their own way: there packing changes scores by float
// rounding only (≈1e-7).
//
// A tree longer than the largest row is split into trees over subsets of
// its continuations; a single continuation longer than that (max_length
// over 2048) is scored in an unpacked row.

// packAlign is the alignment of trees and branches in a packed row: the
// group size of the pure-Go backend's dot-product kernels.
const packAlign = 8

// packRowLengths are the packed row capacities: a run uses the smallest
// that holds its longest tree; rows left partly empty are shortened to
// their T bucket.
var packRowLengths = []int{256, 512, 1024, 2048}

// packTree is the items that share a scored prefix, laid out as one
// segment of a packed row.
type packTree struct {
	items  []int // item indices, in canonical order (inp, then targets)
	shared int   // prefix tokens laid out once, as branch 0 (a multiple of packAlign)
	length int   // tokens the tree takes in its row, alignment padding included
}

// packRow is one packed row: its trees (indices into the plan's trees) in
// layout order and the tokens they take.
type packRow struct {
	trees []int
	used  int
}

// packBatch is one forward pass of packed rows of equal length T.
type packBatch struct {
	B, T, K int
	rows    []packRow
}

// packPlan is the packed part of a scoring run.
type packPlan struct {
	trees   []packTree
	batches []packBatch
}

// scoredPrefix is an item's input up to the position whose hidden state
// scores the first target.
func scoredPrefix(it item) []int32 { return it.inp[:len(it.inp)-len(it.targets)+1] }

// alignUp rounds n up to a multiple of packAlign.
func alignUp(n int) int { return (n + packAlign - 1) / packAlign * packAlign }

// compareItems orders items by input, then targets.
func compareItems(a, b item) int {
	if c := slices.Compare(a.inp, b.inp); c != 0 {
		return c
	}
	return slices.Compare(a.targets, b.targets)
}

// planPacked packs the non-empty items among cand into batches of at most
// batchSize rows (fewer for long rows: passRows); rest are the items to
// score unpacked.
func planPacked(items []item, cand []int, batchSize int) (plan packPlan, rest []int) {
	trees, rest := buildTrees(items, cand, packRowLengths[len(packRowLengths)-1])
	if len(trees) == 0 {
		return plan, rest
	}
	capacity := packRowLengths[len(packRowLengths)-1]
	for _, l := range slices.Backward(packRowLengths) {
		if l >= trees[0].length {
			capacity = l
		}
	}
	rows := packRows(trees, capacity)
	// Longest rows first (stable: placement order), then cut into batches
	// of equal T.
	rowT := func(r packRow) int { return bucketT(r.used, capacity) }
	slices.SortStableFunc(rows, func(a, b packRow) int { return rowT(b) - rowT(a) })
	for start := 0; start < len(rows); {
		t := rowT(rows[start])
		end := start
		rowCap := passRows(t, batchSize)
		for end < len(rows) && end-start < rowCap && rowT(rows[end]) == t {
			end++
		}
		k := 0
		for _, r := range rows[start:end] {
			for _, ti := range r.trees {
				for _, i := range trees[ti].items {
					k += len(items[i].targets)
				}
			}
		}
		plan.batches = append(plan.batches, packBatch{B: bucketB(end-start, rowCap), T: t, K: bucketPow2(k), rows: rows[start:end]})
		start = end
	}
	plan.trees = trees
	return plan, rest
}

// buildTrees groups the non-empty items among cand by scored prefix and
// splits trees longer than limit into trees over consecutive runs of their
// items. It returns the trees, longest first (ties in canonical order, so
// the plan does not depend on the order of cand), and the items too long
// to pack even alone.
func buildTrees(items []item, cand []int, limit int) (trees []packTree, rest []int) {
	groups := map[string][]int{}
	var keys []string
	for _, i := range cand {
		if len(items[i].targets) == 0 {
			continue
		}
		k := idsKey(scoredPrefix(items[i]))
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range keys {
		members := groups[k]
		slices.SortFunc(members, func(a, b int) int { return compareItems(items[a], items[b]) })
		shared := len(scoredPrefix(items[members[0]])) / packAlign * packAlign
		cur := packTree{shared: shared, length: shared}
		for _, i := range members {
			r := alignUp(len(items[i].inp) - shared)
			if shared+r > limit {
				rest = append(rest, i)
				continue
			}
			if cur.length+r > limit {
				trees = append(trees, cur)
				cur = packTree{shared: shared, length: shared}
			}
			cur.items = append(cur.items, i)
			cur.length += r
		}
		if len(cur.items) > 0 {
			trees = append(trees, cur)
		}
	}
	slices.SortFunc(trees, func(a, b packTree) int {
		if a.length != b.length {
			return b.length - a.length
		}
		return compareItems(items[a.items[0]], items[b.items[0]])
	})
	return trees, rest
}

// packRows places the trees (longest first) first-fit into rows of
// capacity tokens. Rows that cannot take even the shortest tree are closed.
func packRows(trees []packTree, capacity int) []packRow {
	var rows []packRow
	var open []int // indices of rows that may still take a tree
	shortest := trees[len(trees)-1].length
	for ti, t := range trees {
		at := -1
		for j, r := range open {
			if rows[r].used+t.length <= capacity {
				at = j
				break
			}
		}
		if at < 0 {
			rows = append(rows, packRow{})
			open = append(open, len(rows)-1)
			at = len(open) - 1
		}
		r := &rows[open[at]]
		r.trees = append(r.trees, ti)
		r.used += t.length
		if capacity-r.used < shortest {
			open = slices.Delete(open, at, at+1)
		}
	}
	return rows
}

// layout fills pass p (allocated with newPass(b.B, b.T, b.K, true)) with
// the rows of batch b. Padding is segment 0 at position 0: it sees only
// padding, so every query sees at least one key.
func (pl *packPlan) layout(items []item, b packBatch) *pass {
	p := newPass(b.B, b.T, b.K, true)
	for r, row := range b.rows {
		off := 0
		for seg, ti := range row.trees {
			pl.layoutTree(p, items, pl.trees[ti], r, off, int32(seg+1))
			off += pl.trees[ti].length
		}
	}
	return p
}

// layoutTree writes tree t as segment seg of row r from column off, and
// its items' slots.
func (pl *packPlan) layoutTree(p *pass, items []item, t packTree, r, off int, seg int32) {
	put := func(col int, tok int32, pos, br int) {
		x := r*p.T + col
		p.tokens[x], p.positions[x], p.segment[x], p.branch[x] = tok, int32(pos), seg, int32(br)
	}
	first := items[t.items[0]].inp
	for q := range t.shared {
		put(off+q, first[q], q, 0)
	}
	p.real += t.shared
	at := off + t.shared // start of the current branch
	for bi, idx := range t.items {
		it := items[idx]
		n, c := len(it.inp), len(it.targets)
		for q := t.shared; q < n; q++ {
			put(at+q-t.shared, it.inp[q], q, bi+1)
		}
		p.real += n - t.shared
		for j := range c {
			q := n - c + j // position whose hidden state scores target j
			col := off + q
			if q >= t.shared {
				col = at + q - t.shared
			}
			p.addSlot(r, col, it.targets[j], idx)
		}
		at += alignUp(n - t.shared)
	}
}

// idsKey encodes token ids as a map key.
func idsKey(ids []int32) string {
	b := make([]byte, 0, 4*len(ids))
	for _, v := range ids {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return string(b)
}
