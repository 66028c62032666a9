package engine

import (
	"slices"
	"testing"
)

// TestPrefillShapes: where a graph of a new shape is cheap (gocpu) a
// prefill is as long as its longest prompt rounded to 16 (exactAlignT) and has
// one row per prompt, at most 2048 tokens (prefillBudget); elsewhere it
// takes a length bucket and a power of two of rows within 4096 tokens, and
// admit takes no more prompts than that power of two (8 prompts of 750
// tokens were 12 rows of 768: 5 + 3 real).
func TestPrefillShapes(t *testing.T) {
	for _, c := range []struct {
		spec         string
		n, s         int // longest prompt, cache slots
		wantT        int
		waiting      int // prompts waiting, all of n tokens
		wantAdmitted int
		wantP        int
	}{
		{spec: "gocpu", n: 750, s: 1024, wantT: 752, waiting: 8, wantAdmitted: 2, wantP: 2},
		{spec: "gocpu", n: 1020, s: 1024, wantT: 1024, waiting: 8, wantAdmitted: 2, wantP: 2},
		{spec: "gocpu", n: 300, s: 1024, wantT: 304, waiting: 8, wantAdmitted: 6, wantP: 6},
		{spec: "gocpu", n: 3, s: 1024, wantT: 16, waiting: 3, wantAdmitted: 3, wantP: 3},
		{spec: "go", n: 750, s: 1024, wantT: 768, waiting: 8, wantAdmitted: 4, wantP: 4},
		{spec: "go", n: 300, s: 1024, wantT: 384, waiting: 8, wantAdmitted: 8, wantP: 8},
		{spec: "go", n: 300, s: 1024, wantT: 384, waiting: 3, wantAdmitted: 3, wantP: 4},
	} {
		b, err := newBackend(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		e := &Engine{backend: b, maxLen: 4096}
		if got := e.prefillT(c.n, c.s); got != c.wantT {
			t.Errorf("%s: prefillT(%d, %d) = %d, want %d", c.spec, c.n, c.s, got, c.wantT)
		}
		items := make([]genItem, c.waiting)
		waiting := make([]int, c.waiting)
		for i := range items {
			items[i].ctx = make([]int32, c.n)
			waiting[i] = i
		}
		admitted := e.admit(make([]*genRow, 16), items, waiting, c.s, genGroup{})
		if len(admitted) != c.wantAdmitted {
			t.Errorf("%s: %d prompts of %d tokens: admitted %d, want %d", c.spec, c.waiting, c.n, len(admitted), c.wantAdmitted)
		}
		if got := e.prefillP(len(admitted), 16); got != c.wantP {
			t.Errorf("%s: prefillP(%d) = %d, want %d", c.spec, len(admitted), got, c.wantP)
		}
		b.Finalize()
	}
}

// TestExactShapes: with exact shapes (gocpu) a scoring pass is as long as
// its longest row rounded to 16, takes the rows there are and scores K
// slots rounded to 8; bucketed shapes pad to T, B and K buckets. Packed
// rows are sorted by length so that a pass's rows are alike.
func TestExactShapes(t *testing.T) {
	for _, c := range []struct {
		n, maxLen           int
		wantT, wantB, wantK int
		exact               bool
	}{
		{n: 437, maxLen: 2048, wantT: 448, wantB: 5, wantK: 40, exact: true},
		{n: 437, maxLen: 2048, wantT: 512, wantB: 8, wantK: 64, exact: false},
		{n: 3, maxLen: 2048, wantT: 16, wantB: 5, wantK: 40, exact: true},
		{n: 2047, maxLen: 2044, wantT: 2048, wantB: 5, wantK: 40, exact: true},
	} {
		sr := shapeRule{exact: c.exact}
		if got := sr.t(c.n, c.maxLen); got != c.wantT {
			t.Errorf("exact=%v: t(%d, %d) = %d, want %d", c.exact, c.n, c.maxLen, got, c.wantT)
		}
		if got := sr.b(5, 8); got != c.wantB {
			t.Errorf("exact=%v: b(5, 8) = %d, want %d", c.exact, got, c.wantB)
		}
		if got := sr.k(37); got != c.wantK {
			t.Errorf("exact=%v: k(37) = %d, want %d", c.exact, got, c.wantK)
		}
	}
	// Three contexts of 300, 40 and 290 tokens with one 2-token answer
	// each (inputs of 301, 41 and 291 tokens: the last answer token is
	// not an input): rows of 512, next fit, use 301 + 41 and 291 columns.
	var items []item
	for i, n := range []int{300, 40, 290} {
		ctx := make([]int32, n)
		for j := range ctx {
			ctx[j] = int32(1 + (i*7+j)%90)
		}
		it, err := makeItem(ctx, []int32{91, 92}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	plan, rest := planPacked(items, []int{0, 1, 2}, 8, 1000, 1, shapeRule{exact: true}, nil)
	if len(rest) != 0 || len(plan.batches) != 1 {
		t.Fatalf("rest %v, %d passes; want one pass", rest, len(plan.batches))
	}
	b := plan.batches[0]
	var used []int
	for _, r := range b.rows {
		used = append(used, r.used)
	}
	if !slices.Equal(used, []int{342, 291}) || b.T != 352 || b.B != len(b.rows) || b.K != 8 {
		t.Errorf("pass B=%d T=%d K=%d, rows using %v: want rows using [342 291] in a pass of B=2 T=352 K=8", b.B, b.T, b.K, used)
	}
}
