package plan

import "math"

// Layout is one pass's host inputs: B rows of T tokens and K scored
// slots. The first len(SlotItem) slots are used; slot k scores the next
// token after the hidden state at (SlotRow[k], SlotPos[k]) against
// Targets[k] for item SlotItem[k]. An item's slots are consecutive and in
// continuation order.
type Layout struct {
	B, T, K int
	Kind    Kind
	// Tokens are the rows' ids, [B·T].
	Tokens []int32
	// Positions, Node and End (Packed and After only), [B·T]: each token's
	// position and prefix-tree node number, and one past its node's last
	// descendant in the row (models.Packing); padding is node 0, end 1, at
	// position 0. Unpacked rows are at positions 0…T-1.
	Positions, Node, End []int32
	// SlotRow, SlotPos and Targets are the scored slots, [K].
	SlotRow, SlotPos, Targets []int32
	// SlotItem is each used slot's item (Plan.Items).
	SlotItem []int
	// Real is the tokens laid out (not padding).
	Real int
	// PrefixPos [B·Pb] and RowPrefix [B] (After only): row r attends to
	// cached prefix RowPrefix[r] (Pass.Prefixes) at positions
	// PrefixPos[r·Pb:(r+1)·Pb] (prefixPositions).
	PrefixPos, RowPrefix []int32
}

// newLayout allocates a layout of shape (B, T, K) of kind, with Pb prefix
// slots per row when kind is After.
func newLayout(kind Kind, b, t, k, pb int) *Layout {
	l := &Layout{B: b, T: t, K: k, Kind: kind, Tokens: make([]int32, b*t),
		SlotRow: make([]int32, k), SlotPos: make([]int32, k), Targets: make([]int32, k)}
	if kind != Unpacked {
		l.Positions, l.Node, l.End = make([]int32, b*t), make([]int32, b*t), make([]int32, b*t)
		for i := range l.End {
			l.End[i] = 1 // padding: node 0, end 1
		}
	}
	if kind == After {
		l.PrefixPos, l.RowPrefix = make([]int32, b*pb), make([]int32, b)
	}
	return l
}

// addSlot appends a used slot.
func (l *Layout) addSlot(row, pos int, target int32, owner int) {
	k := len(l.SlotItem)
	l.SlotRow[k], l.SlotPos[k], l.Targets[k] = int32(row), int32(pos), target
	l.SlotItem = append(l.SlotItem, owner)
}

// unpackedLayout lays out pass p: one right-padded item per row.
func unpackedLayout(items []Item, p *Pass) *Layout {
	l := newLayout(Unpacked, p.B, p.T, p.K, 0)
	for r, idx := range p.items {
		it := items[idx]
		copy(l.Tokens[r*p.T:], it.Input)
		n, c := len(it.Input), len(it.Targets)
		for j := range c {
			l.addSlot(r, n-c+j, it.Targets[j], idx)
		}
		l.Real += n
	}
	return l
}

// prefixPositions are the positions of a prefix of p tokens in pb slots:
// 0…p-1, then a position past every token's for the padding slots.
func prefixPositions(p, pb int) []int32 {
	pos := make([]int32, pb)
	for i := range pos {
		pos[i] = int32(i)
		if i >= p {
			pos[i] = math.MaxInt32 / 2
		}
	}
	return pos
}
