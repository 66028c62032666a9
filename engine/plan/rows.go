package plan

import (
	"encoding/binary"
	"slices"
)

// Unpacked rows: items are deduplicated, sorted longest first (lm-eval's
// Collator order, ties broken by tokens), cut into passes of at most
// BatchSize rows and padded to their shapes (shapes.go).

// batch is one pass of unpacked rows: rows index the deduplicated items.
type batch struct {
	B, T, K int // rows, sequence bucket, scored slots
	rows    []int
}

// dedup returns the distinct items and, per input item, its index in them.
func dedup(items []Item) (uniq []Item, index []int) {
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
func itemKey(it Item) string {
	b := make([]byte, 0, 4*(len(it.Input)+len(it.Targets)+1))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(it.Input)))
	for _, v := range it.Input {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range it.Targets {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return string(b)
}

// planBatches orders the (non-empty) items among cand and groups them into
// batches.
func planBatches(items []Item, cand []int, batchSize, maxLen int, sr Shapes) []batch {
	order := make([]int, 0, len(cand))
	for _, i := range cand {
		if len(items[i].Targets) > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if la, lb := len(items[a].Input), len(items[b].Input); la != lb {
			return lb - la
		}
		return slices.Compare(items[a].Input, items[b].Input)
	})
	var out []batch
	for start := 0; start < len(order); {
		// The first row is the longest: it sets T and so the row cap.
		rowCap := passRows(sr.T(len(items[order[start]].Input), maxLen), batchSize)
		rows := order[start:min(start+rowCap, len(order))]
		t, k := 0, 0
		for _, r := range rows {
			t, k = max(t, len(items[r].Input)), k+len(items[r].Targets)
		}
		out = append(out, batch{B: sr.B(len(rows), rowCap), T: sr.T(t, maxLen), K: sr.K(k), rows: rows})
		start += len(rows)
	}
	return out
}
