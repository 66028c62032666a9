package engine

import (
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
		b, err := newBackend(c.spec, compileCache{})
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
