package engine

import (
	"encoding/binary"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// Batching: rows are deduplicated, sorted longest first (lm-eval's
// Collator order, ties broken by tokens), cut into batches of at most
// BatchSize rows and padded to bucketed shapes (B, T, K) so that each graph
// shape is compiled once:
//
//	T: 8, 16, 24, 32, 48, 64, 96, 128, 192, … (multiples of 8, ≈1.5× apart)
//	K: scored positions of the whole batch, packed, a power of two
//	B: a power of two ≤ BatchSize (or BatchSize itself), and B·T ≤ 4096
//	   tokens unless a single row is longer (passRows)
//
// Rows are right-padded: causality already hides the padding from every
// real position, and masked keys add exact zeros, so a row's result does
// not depend on its bucket or its neighbours (see invariance_test.go).
//
// Where a graph of a new shape costs next to nothing (goeval's pure-Go
// backend: Engine.cheapShapes), the buckets are padding for nothing: the
// shapes are exact instead (shapeRule), T rounded up to 16, K to 8, B the
// rows there are.

// shapeRule rounds a graph's dimensions: to the buckets above, or, when
// exact, barely (see above).
type shapeRule struct{ exact bool }

// exactAlignT and exactAlignK are the granularity of exact shapes.
const exactAlignT, exactAlignK = 16, 8

// t is the padded length of rows of n tokens (at most maxLen, unless n
// is longer).
func (r shapeRule) t(n, maxLen int) int {
	if !r.exact {
		return bucketT(n, maxLen)
	}
	return min(roundUp(n, exactAlignT), max(roundUp(maxLen, 8), roundUp(n, 8)))
}

// b is the row count of a pass of n rows of at most rowCap.
func (r shapeRule) b(n, rowCap int) int {
	if !r.exact {
		return bucketB(n, rowCap)
	}
	return n
}

// k is the scored-slot count of a pass scoring n positions.
func (r shapeRule) k(n int) int {
	if !r.exact {
		return bucketPow2(n)
	}
	return roundUp(n, exactAlignK)
}

// roundUp rounds n up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// batch is one forward pass: rows index the deduplicated items.
type batch struct {
	B, T, K int // rows, sequence bucket, scored slots
	rows    []int
}

// dedup returns the distinct items and, per input item, its index in them.
func dedup(items []item) (uniq []item, index []int) {
	seen := map[string]int{}
	index = make([]int, len(items))
	for i, it := range items {
		k := itemKey(it)
		j, ok := seen[k]
		if !ok {
			j = len(uniq)
			seen[k] = j
			uniq = append(uniq, it)
		}
		index[i] = j
	}
	return uniq, index
}

// itemKey encodes an item's input and targets as a map key.
func itemKey(it item) string {
	b := make([]byte, 0, 4*(len(it.inp)+len(it.targets)+1))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(it.inp)))
	for _, v := range it.inp {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range it.targets {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return string(b)
}

// planBatches orders the (non-empty) items among cand and groups them into
// batches.
func planBatches(items []item, cand []int, batchSize, maxLen int, sr shapeRule) []batch {
	order := make([]int, 0, len(cand))
	for _, i := range cand {
		if len(items[i].targets) > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if la, lb := len(items[a].inp), len(items[b].inp); la != lb {
			return lb - la
		}
		return slices.Compare(items[a].inp, items[b].inp)
	})
	var out []batch
	for start := 0; start < len(order); {
		// The first row is the longest: it sets T and so the row cap.
		rowCap := passRows(sr.t(len(items[order[start]].inp), maxLen), batchSize)
		rows := order[start:min(start+rowCap, len(order))]
		t, k := 0, 0
		for _, r := range rows {
			t, k = max(t, len(items[r].inp)), k+len(items[r].targets)
		}
		out = append(out, batch{B: sr.b(len(rows), rowCap), T: sr.t(t, maxLen), K: sr.k(k), rows: rows})
		start += len(rows)
	}
	return out
}

// passTokenBudget caps B·T of one scoring pass (but never below one row):
// activations grow with B·T (the MLP's [B, T, I] intermediates: 4096 ×
// 4864 × 4 bytes = 80 MB each at Qwen2.5-0.5B), so 8 rolling windows of
// 2048 tokens run as 4 passes of 2 rows. Results do not depend on B
// (invariance_test.go).
const passTokenBudget = 4096

// passRows is the most rows a pass of T-token rows takes: batchSize, or
// fewer so that B·T ≤ passTokenBudget, at least 1.
func passRows(t, batchSize int) int { return max(1, min(batchSize, passTokenBudget/t)) }

// pass is one forward pass's host inputs: B rows of T tokens and K scored
// slots. positions, node and nodeEnd are set for packed rows only
// (unpacked rows use positions 0…T-1). The first len(slotItem) slots are
// used; slot k scores the next token after the hidden state at
// (slotRow[k], slotPos[k]) against targets[k] for item slotItem[k]. An
// item's slots are consecutive and in continuation order.
type pass struct {
	B, T, K                   int
	tokens                    []int32 // [B·T]
	positions, node, nodeEnd  []int32 // [B·T], packed rows only (pack.go)
	slotRow, slotPos, targets []int32 // [K]
	slotItem                  []int
	real                      int // real (non-padding) tokens in the rows
	// prefixPos [B·Pb], rowPrefix [B] and prefixKV (G × 2L × [1, K, Pb,
	// D]) are the cached prefixes that packed rows attend to
	// (prefixkv.go), nil without any.
	prefixPos, rowPrefix []int32
	prefixKV             []*tensors.Tensor
}

// packed reports whether p's rows are packed (pack.go).
func (p *pass) packed() bool { return p.node != nil }

// rowKind is the kind of rows a scoring graph takes.
type rowKind int

const (
	unpackedRows rowKind = iota // one right-padded item per row
	packedRows                  // packed rows (pack.go)
	afterRows                   // packed rows after a cached prefix (prefixkv.go)
)

// kind is the kind of p's rows.
func (p *pass) kind() rowKind {
	switch {
	case p.prefixKV != nil:
		return afterRows
	case p.packed():
		return packedRows
	}
	return unpackedRows
}

// newPass allocates a pass of shape (B, T, K), with the packed inputs when
// packed.
func newPass(b, t, k int, packed bool) *pass {
	p := &pass{B: b, T: t, K: k, tokens: make([]int32, b*t),
		slotRow: make([]int32, k), slotPos: make([]int32, k), targets: make([]int32, k)}
	if packed {
		p.positions, p.node, p.nodeEnd = make([]int32, b*t), make([]int32, b*t), make([]int32, b*t)
		for i := range p.nodeEnd {
			p.nodeEnd[i] = 1 // padding: node 0, end 1
		}
	}
	return p
}

// addSlot appends a used slot.
func (p *pass) addSlot(row, pos int, target int32, owner int) {
	k := len(p.slotItem)
	p.slotRow[k], p.slotPos[k], p.targets[k] = int32(row), int32(pos), target
	p.slotItem = append(p.slotItem, owner)
}

// unpackedPass lays out batch b: one right-padded item per row.
func unpackedPass(items []item, b batch) *pass {
	p := newPass(b.B, b.T, b.K, false)
	for r, idx := range b.rows {
		it := items[idx]
		copy(p.tokens[r*b.T:], it.inp)
		n, c := len(it.inp), len(it.targets)
		for j := range c {
			p.addSlot(r, n-c+j, it.targets[j], idx)
		}
		p.real += n
	}
	return p
}

// bucketT rounds a sequence length up to the next bucket (multiples of 8,
// about 1.5× apart), capped at maxLen rounded up to a multiple of 8.
func bucketT(n, maxLen int) int {
	limit := (maxLen + 7) / 8 * 8
	b := 8
	for b < n {
		if b&(b-1) == 0 && b >= 16 { // power of two → ×1.5
			b = b / 2 * 3
		} else if b < 16 {
			b += 8
		} else { // 1.5 × power of two → next power of two
			b = b / 3 * 4
		}
	}
	return min(b, max(limit, (n+7)/8*8))
}

// bucketPow2 rounds n ≥ 1 up to a power of two.
func bucketPow2(n int) int {
	b := 1
	for b < n {
		b *= 2
	}
	return b
}

// bucketB rounds a row count up to a power of two, but never above the
// batch size.
func bucketB(n, batchSize int) int { return min(bucketPow2(n), batchSize) }
