package plan

import (
	"reflect"
	"slices"
	"testing"
)

// TestBuckets: length buckets are multiples of 8 about 1.5× apart, capped
// at max_length rounded up to 8.
func TestBuckets(t *testing.T) {
	var got []int
	for _, n := range []int{1, 8, 9, 17, 25, 33, 49, 65, 100, 129, 200, 1000} {
		got = append(got, bucketT(n, 4096))
	}
	want := []int{8, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 1024}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bucketT = %v, want %v", got, want)
	}
	if b := bucketT(300, 260); b != 304 {
		t.Fatalf("bucketT(300, 260) = %d, want the 8-aligned length 304", b)
	}
}

// TestPassRows: passes of long rows take fewer rows (B·T ≤ 4096), never
// none; short rows keep the batch size.
func TestPassRows(t *testing.T) {
	for _, c := range []struct{ t, batch, want int }{
		{2048, 8, 2}, {4096, 8, 1}, {32768, 8, 1}, {512, 8, 8}, {1536, 8, 2}, {16, 3, 3},
	} {
		if got := passRows(c.t, c.batch); got != c.want {
			t.Errorf("passRows(T=%d, batch %d) = %d, want %d", c.t, c.batch, got, c.want)
		}
	}
	// 8 rolling windows of 2048 tokens: planBatches cuts them into passes
	// of 2 rows.
	var items []Item
	for i := range 8 {
		inp := make([]int32, 2048)
		inp[0] = int32(i + 1)
		items = append(items, Item{Input: inp, Targets: inp[1:]})
	}
	for _, b := range planBatches(items, []int{0, 1, 2, 3, 4, 5, 6, 7}, 8, 2048, Shapes{}) {
		if b.B*b.T > passTokenBudget || len(b.rows) > b.B {
			t.Errorf("pass B=%d T=%d with %d rows: over %d tokens", b.B, b.T, len(b.rows), passTokenBudget)
		}
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
		sr := Shapes{Exact: c.exact}
		if got := sr.T(c.n, c.maxLen); got != c.wantT {
			t.Errorf("exact=%v: t(%d, %d) = %d, want %d", c.exact, c.n, c.maxLen, got, c.wantT)
		}
		if got := sr.B(5, 8); got != c.wantB {
			t.Errorf("exact=%v: b(5, 8) = %d, want %d", c.exact, got, c.wantB)
		}
		if got := sr.K(37); got != c.wantK {
			t.Errorf("exact=%v: k(37) = %d, want %d", c.exact, got, c.wantK)
		}
	}
	// Three contexts of 300, 40 and 290 tokens with one 2-token answer
	// each (inputs of 301, 41 and 291 tokens: the last answer token is
	// not an input): rows of 512, next fit, use 301 + 41 and 291 columns.
	var items []Item
	for i, n := range []int{300, 40, 290} {
		ctx := make([]int32, n)
		for j := range ctx {
			ctx[j] = int32(1 + (i*7+j)%90)
		}
		items = append(items, item(ctx, []int32{91, 92}))
	}
	pl := New(items, Options{BatchSize: 8, MaxLen: 1000, Pack: true, Align: 1, AttnKeys: 1000, Shapes: Shapes{Exact: true}})
	if len(pl.Passes) != 1 || pl.Passes[0].Kind != Packed {
		t.Fatalf("%d passes; want one packed pass", len(pl.Passes))
	}
	b := pl.Passes[0]
	var used []int
	for _, r := range b.rows {
		used = append(used, r.used)
	}
	if !slices.Equal(used, []int{342, 291}) || b.T != 352 || b.B != len(b.rows) || b.K != 8 {
		t.Errorf("pass B=%d T=%d K=%d, rows using %v: want rows using [342 291] in a pass of B=2 T=352 K=8", b.B, b.T, b.K, used)
	}
}
