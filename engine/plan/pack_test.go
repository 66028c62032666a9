package plan

import (
	"slices"
	"testing"
)

// simplegoAlign is the node alignment the engine packs with on GoMLX's
// simplego (engine's packAlign).
const simplegoAlign = 8

// item is the Item of a (context, continuation) pair that max_length does
// not truncate (engine's makeItem): the input is context + continuation
// but its last token, the targets the continuation.
func item(ctx, cont []int32) Item {
	in := append(slices.Clone(ctx), cont[:len(cont)-1]...)
	return Item{Input: in, Targets: cont}
}

// TestPackLayout lays out a trie by hand: a 10-id context (node 1, ids
// 1–8 laid out once) with continuations [20] (an empty leaf, node 2) and
// [21 22] (node 3), each repeating ids 9–10 at positions 8–9 8-aligned; a
// 2-id context (node 4); and an 8-id context with two 1-token
// continuations, which share one leaf (node 5) and both are scored by its
// last token.
func TestPackLayout(t *testing.T) {
	ctx10 := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	ctx8 := []int32{60, 61, 62, 63, 64, 65, 66, 67}
	var items []Item
	for _, r := range [][2][]int32{{ctx10, {21, 22}}, {{50, 51}, {52}}, {ctx8, {71}}, {ctx10, {20}}, {ctx8, {70}}} {
		items = append(items, item(r[0], r[1]))
	}
	all := []int{0, 1, 2, 3, 4}
	pl := New(items, Options{BatchSize: 8, MaxLen: 100, Pack: true, Align: simplegoAlign, AttnKeys: 1000})
	if len(pl.Passes) != 1 || pl.Passes[0].Kind != Packed {
		t.Fatalf("%d passes (first %+v); want everything in one packed pass", len(pl.Passes), pl.Passes[0])
	}
	p := pl.Passes[0].Layout()
	if p.B != 1 || p.T != 48 || p.K != 8 || p.Real != 8+2+3+2+8 || pl.Passes[0].Real != p.Real {
		t.Fatalf("pass B=%d T=%d K=%d real=%d (planned %d); want 1, 48 (40 used), 8 (6 slots), 23", p.B, p.T, p.K, p.Real, pl.Passes[0].Real)
	}
	var tok, pos, node, end []int32
	put := func(tokens []int32, p0, n, e int32) {
		for i, x := range tokens {
			tok, pos, node, end = append(tok, x), append(pos, p0+int32(i)), append(node, n), append(end, e)
		}
	}
	pad := func(n int) { // node 0, end 1, position 0
		for range n {
			tok, pos, node, end = append(tok, 0), append(pos, 0), append(node, 0), append(end, 1)
		}
	}
	put(ctx10[:8], 0, 1, 4)
	put([]int32{9, 10}, 8, 2, 3) // [20]: canonical order puts the shorter input first
	pad(6)
	put([]int32{9, 10, 21}, 8, 3, 4)
	pad(5)
	put([]int32{50, 51}, 0, 4, 5)
	pad(6)
	put(ctx8, 0, 5, 6)
	pad(8)
	for name, c := range map[string][2][]int32{"tokens": {p.Tokens, tok}, "positions": {p.Positions, pos}, "node": {p.Node, node}, "end": {p.End, end}} {
		if !slices.Equal(c[0], c[1]) {
			t.Errorf("%s\n got %v\nwant %v", name, c[0], c[1])
		}
	}
	wantSlots := [][3]int{{3, 9, 20}, {0, 17, 21}, {0, 18, 22}, {1, 25, 52}, {4, 39, 70}, {2, 39, 71}}
	for k, w := range wantSlots {
		if k >= len(p.SlotItem) || p.SlotItem[k] != w[0] || p.SlotRow[k] != 0 || int(p.SlotPos[k]) != w[1] || int(p.Targets[k]) != w[2] {
			t.Fatalf("slots: items %v cols %v targets %v; want (item, col, target) %v", p.SlotItem, p.SlotPos, p.Targets, wantSlots)
		}
	}
	// Rows of 16 columns: the 10-id context is laid out again in the row of
	// its second continuation; rows of 8 leave its items unpacked.
	tr := buildTrie(items, all, simplegoAlign)
	rows, unpacked := tr.packRows(16, nil)
	if len(rows) != 3 || len(unpacked) != 0 || rows[0].used != 16 || rows[1].used != 16 || len(rows[1].nodes) != 2 {
		t.Errorf("capacity 16: rows %+v unpacked %v; want 3 rows of 16, the second repeating the shared node", rows, unpacked)
	}
	if _, unpacked = tr.packRows(8, nil); !slices.Equal(unpacked, []int{3, 0}) {
		t.Errorf("capacity 8: unpacked %v, want [3 0]", unpacked)
	}
}
