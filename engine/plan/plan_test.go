package plan

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// workload is a few-shot-like workload: questions after one of two
// few-shot blocks of about shot ids (or none), 2–4 answers of 1–3 ids
// each, every fifth item repeated, and an item without targets.
func workload(seed uint64, questions, shot int) []Item {
	rng := rand.New(rand.NewPCG(seed, 1))
	ids := func(n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(3 + rng.IntN(500))
		}
		return out
	}
	blocks := [][]int32{ids(shot), ids(shot + 7), nil}
	var out []Item
	for q := range questions {
		ctx := append(slices.Clone(blocks[q%3]), ids(4+rng.IntN(20))...)
		for range 2 + rng.IntN(3) {
			out = append(out, item(ctx, ids(1+rng.IntN(3))))
			if len(out)%5 == 0 {
				out = append(out, out[len(out)-1])
			}
		}
	}
	return append(out, Item{Input: ids(4)})
}

// TestPlanCoversEveryItem: under every combination of options, each
// distinct item with targets is scored in exactly one pass, one slot per
// target in order, at the slot whose token is the one before the target;
// duplicates share their item; passes fit their shapes and the token
// budget; Tokens counts what the passes lay out (and each cached prefix
// once); Blank has the layout's shapes.
func TestPlanCoversEveryItem(t *testing.T) {
	items := workload(1, 40, 90)
	slots := func(p int) int { return Shapes{}.T(p, 4096) }
	for _, o := range []Options{
		{BatchSize: 4, MaxLen: 4096},
		{BatchSize: 4, MaxLen: 4096, Shapes: Shapes{Exact: true}},
		{BatchSize: 8, MaxLen: 4096, Pack: true, Align: 1, AttnKeys: 300},
		{BatchSize: 8, MaxLen: 4096, Pack: true, Align: 8, AttnKeys: 300, RowLengths: []int{128}},
		{BatchSize: 3, MaxLen: 4096, Pack: true, Align: 1, AttnKeys: 300, RowLengths: []int{128}, Shapes: Shapes{Exact: true},
			Prefixes: &PrefixRule{Slots: slots, Fits: func(int) bool { return true }}},
		{BatchSize: 4, MaxLen: 4096, Uniform: 10},
		{BatchSize: 8, MaxLen: 4096, Pack: true, Align: 1, AttnKeys: 300, RowLengths: []int{128}, Uniform: 10},
	} {
		pl := New(items, o)
		for i, j := range pl.Index {
			if !slices.Equal(pl.Items[j].Input, items[i].Input) || !slices.Equal(pl.Items[j].Targets, items[i].Targets) {
				t.Fatalf("%+v: item %d indexes a different item", o, i)
			}
		}
		if len(pl.Items) >= len(items) {
			t.Errorf("%+v: %d distinct items of %d: duplicates not merged", o, len(pl.Items), len(items))
		}
		seen := make([]int, len(pl.Items))
		tokens, after := 0, 0
		for _, p := range pl.Passes {
			l, blank := p.Layout(), p.Blank()
			if l.B != p.B || l.T != p.T || l.K != p.K || l.Kind != p.Kind || l.Real != p.Real || len(l.SlotItem) > p.K ||
				len(blank.Tokens) != len(l.Tokens) || len(blank.Node) != len(l.Node) || len(blank.PrefixPos) != len(l.PrefixPos) {
				t.Fatalf("%+v: pass %+v laid out as B=%d T=%d K=%d kind %d real %d", o, p, l.B, l.T, l.K, l.Kind, l.Real)
			}
			if p.B*p.T > passTokenBudget && p.B > 1 {
				t.Errorf("%+v: pass B=%d T=%d over the token budget", o, p.B, p.T)
			}
			tokens += p.Real
			if p.Kind == After {
				after++
				checkPrefixes(t, pl, &p, l)
			}
			checkSlots(t, pl, l, seen)
			if got, want := distinct(p.ItemIndices()), distinct(l.SlotItem); !slices.Equal(got, want) {
				t.Errorf("%+v: ItemIndices %v, the slots' items %v", o, got, want)
			}
		}
		for i, n := range seen {
			if want := min(len(pl.Items[i].Targets), 1); n != want {
				t.Errorf("%+v: item %d is in %d passes, want %d", o, i, n, want)
			}
		}
		if o.Prefixes != nil && after == 0 {
			t.Errorf("%+v: no pass after a cached prefix", o)
		}
		if got := pl.Tokens(); got != tokens+pl.packed.prefixTokens() || o.Prefixes != nil && got == tokens {
			t.Errorf("%+v: Tokens %d; passes lay out %d, cached prefixes %d", o, got, tokens, pl.packed.prefixTokens())
		}
	}
}

// distinct is xs sorted, without repeats.
func distinct(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// checkSlots checks each used slot of l: its item's targets in order,
// each scored at the slot holding the token before it (in its row's
// layout), and counts the items seen.
func checkSlots(t *testing.T, pl *Plan, l *Layout, seen []int) {
	t.Helper()
	for k := 0; k < len(l.SlotItem); {
		i := l.SlotItem[k]
		it := pl.Items[i]
		seen[i]++
		for j, target := range it.Targets {
			if k+j >= len(l.SlotItem) || l.SlotItem[k+j] != i || l.Targets[k+j] != target {
				t.Fatalf("item %d: slot %d does not score its target %d", i, k+j, j)
			}
			at := int(l.SlotRow[k+j])*l.T + int(l.SlotPos[k+j])
			q := len(it.Input) - len(it.Targets) + j // the position whose hidden state scores target j
			if l.Tokens[at] != it.Input[q] || l.Positions != nil && int(l.Positions[at]) != q {
				t.Fatalf("item %d target %d: slot at token %d position %v, want token %d at position %d", i, j, l.Tokens[at], l.Positions, it.Input[q], q)
			}
		}
		k += len(it.Targets)
	}
}

// checkPrefixes checks an After pass's prefixes: each row's prefix is the
// start of every input it scores, at positions 0…P-1 then padding past
// every token, and its own tokens continue from the prefix.
func checkPrefixes(t *testing.T, pl *Plan, p *Pass, l *Layout) {
	t.Helper()
	pb := pl.PrefixSlots
	for r := range p.B {
		g := int(l.RowPrefix[r])
		if g >= len(p.Prefixes) {
			t.Fatalf("row %d: prefix %d of %d", r, g, len(p.Prefixes))
		}
		n := 0
		if r < len(p.rows) && p.rows[r].prefix != 0 {
			n = len(p.Prefixes[g])
		}
		for s, pos := range l.PrefixPos[r*pb : (r+1)*pb] {
			if want := int32(s); s >= n && pos != math.MaxInt32/2 || s < n && pos != want {
				t.Fatalf("row %d: prefix slot %d at position %d (prefix of %d)", r, s, pos, n)
			}
		}
		for c := range l.T {
			if x := r*l.T + c; n > 0 && l.Node[x] != 0 && int(l.Positions[x]) < n {
				t.Fatalf("row %d col %d: position %d inside its cached prefix of %d", r, c, l.Positions[x], n)
			}
		}
	}
	for k, i := range l.SlotItem {
		r := l.SlotRow[k]
		if p.rows[r].prefix == 0 {
			continue
		}
		if g := p.Prefixes[l.RowPrefix[r]]; !slices.Equal(pl.Items[i].Input[:len(g)], g) {
			t.Fatalf("item %d scored after a prefix its input does not start with", i)
		}
	}
}

// TestMaxPackedInput: with MaxPackedInput, every item whose input is
// longer runs in an unpacked row of its own (a LongRoPE model reads a
// row's length), the shorter ones are packed, and every item is still
// scored once (TestPlanCoversEveryItem's checks hold).
func TestMaxPackedInput(t *testing.T) {
	items := workload(2, 30, 20)
	const n = 30
	o := Options{BatchSize: 8, MaxLen: 4096, Pack: true, Align: 1, AttnKeys: 300, MaxPackedInput: n}
	pl := New(items, o)
	long, packed := 0, 0
	for _, p := range pl.Passes {
		for _, i := range p.ItemIndices() {
			tooLong := len(pl.Items[i].Input) > n
			switch {
			case tooLong && p.Kind != Unpacked:
				t.Fatalf("item %d (%d input tokens > %d) in a packed pass", i, len(pl.Items[i].Input), n)
			case tooLong:
				long++
			case p.Kind != Unpacked:
				packed++
			}
		}
	}
	if long == 0 || packed == 0 {
		t.Fatalf("%d long items unpacked, %d short ones packed: the workload must have both", long, packed)
	}
	seen := make([]int, len(pl.Items))
	for i := range pl.Passes {
		checkSlots(t, pl, pl.Passes[i].Layout(), seen)
	}
	for i, c := range seen {
		if c != 1 && len(pl.Items[i].Targets) > 0 {
			t.Fatalf("item %d scored %d times", i, c)
		}
	}
}
