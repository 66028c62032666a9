package engine

import (
	"encoding/binary"
	"slices"
)

// Batching: rows are deduplicated, sorted longest first (lm-eval's
// Collator order, ties broken by tokens), cut into batches of at most
// BatchSize rows and padded to bucketed shapes (B, T, K) so that each graph
// shape is compiled once:
//
//	T: 8, 16, 24, 32, 48, 64, 96, 128, 192, … (multiples of 8, ≈1.5× apart)
//	K: scored positions of the whole batch, packed, a power of two
//	B: a power of two ≤ BatchSize (or BatchSize itself)
//
// Rows are right-padded: causality already hides the padding from every
// real position, and masked keys add exact zeros, so a row's result does
// not depend on its bucket or its neighbours (see invariance_test.go).

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

// planBatches orders the (non-empty) items and groups them into batches.
func planBatches(items []item, batchSize, maxLen int) []batch {
	order := make([]int, 0, len(items))
	for i, it := range items {
		if len(it.targets) > 0 {
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
	for start := 0; start < len(order); start += batchSize {
		rows := order[start:min(start+batchSize, len(order))]
		t, k := 0, 0
		for _, r := range rows {
			t, k = max(t, len(items[r].inp)), k+len(items[r].targets)
		}
		out = append(out, batch{B: bucketB(len(rows), batchSize), T: bucketT(t, maxLen), K: bucketPow2(k), rows: rows})
	}
	return out
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
