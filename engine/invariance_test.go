package engine

import (
	"context"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/lm"
)

// openFixture opens a fixture model (fixturemodel.Model) with options o.
func openFixture(t *testing.T, name string, o Options) *Engine {
	t.Helper()
	e, err := Open(fixturemodel.Model(t, name), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestBatchInvariance: a request's result is bit-identical (bound: 0)
// whether scored alone, in batches of other sizes, next to other
// neighbours, or padded to a bigger length bucket or slot count — with
// packing off and on. Packed, a request's tree lands at another offset of
// another row (or shares a row with the long neighbour); plan/pack.go's
// 8-aligned layout keeps its sums in the same order, so the bound stays 0
// on the pure-Go backend (TestPackedExact compares packed with unpacked).
func TestBatchInvariance(t *testing.T) {
	for _, packing := range []string{"off", "on"} {
		t.Run("packing="+packing, func(t *testing.T) { testBatchInvariance(t, packing) })
	}
}

// testBatchInvariance is TestBatchInvariance with one packing setting.
func testBatchInvariance(t *testing.T, packing string) {
	reqs := testutil.Requests(t, "tiny-llama")[:8]
	ll := make([]lm.LoglikelihoodRequest, len(reqs))
	for i, r := range reqs {
		ll[i] = lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
	}
	ctx := context.Background()
	alone := openFixture(t, "tiny-llama", Options{BatchSize: 1, Packing: packing})
	want := make([]lm.LoglikelihoodResult, len(ll))
	for i := range ll {
		r, err := alone.Loglikelihood(ctx, ll[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = r[0]
	}
	// A long neighbour forces a bigger T bucket and more slots.
	long := lm.LoglikelihoodRequest{ContextIDs: make([]int32, 100), ContinuationIDs: []int32{5, 6, 7, 8, 9, 10, 11, 12, 13, 14}}
	for _, bs := range []int{3, 8} {
		e := openFixture(t, "tiny-llama", Options{BatchSize: bs, Packing: packing})
		for name, batchReqs := range map[string][]lm.LoglikelihoodRequest{
			"forward":  ll,
			"reversed": reversed(ll),
			"withLong": append(append([]lm.LoglikelihoodRequest{}, ll...), long),
		} {
			got, err := e.Loglikelihood(ctx, batchReqs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ll {
				j := i
				if name == "reversed" {
					j = len(ll) - 1 - i
				}
				if got[j] != want[i] {
					t.Errorf("batch %d %s: request %d = %+v, alone %+v", bs, name, i, got[j], want[i])
				}
			}
		}
		t.Logf("batch %d: %d graphs compiled", bs, e.Stats().Compiles)
	}
}

func reversed[T any](s []T) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// TestDuplicatesAndOrder: identical requests are scored once and every
// copy gets the same answer, in input order.
func TestDuplicatesAndOrder(t *testing.T) {
	e := openFixture(t, "tiny-llama", Options{BatchSize: 4})
	a := lm.LoglikelihoodRequest{ContextIDs: []int32{1, 100, 200}, ContinuationIDs: []int32{300}}
	b := lm.LoglikelihoodRequest{ContextIDs: []int32{1, 100, 200, 300, 400, 500}, ContinuationIDs: []int32{600, 700}}
	got, err := e.Loglikelihood(context.Background(), []lm.LoglikelihoodRequest{a, b, a, a, b})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != got[2] || got[0] != got[3] || got[1] != got[4] || got[0] == got[1] {
		t.Fatalf("duplicates differ or order lost: %+v", got)
	}
	if got[0].NumTokens != 1 || got[1].NumTokens != 2 {
		t.Fatalf("token counts %d, %d; want 1, 2", got[0].NumTokens, got[1].NumTokens)
	}
	// a's input is a prefix of b's: packed unaligned (gocpu, XLA) b's row
	// holds it; aligned to 8 (simplego) a's last partial group repeats.
	want := 7
	if e.packAlign() > 1 {
		want = 3 + 7
	}
	if s := e.Stats(); s.Tokens != want {
		t.Fatalf("ran %d real tokens; want %d (each distinct request once)", s.Tokens, want)
	}
}

// TestRollingOneWindow: a text that fits one window scores the same as the
// loglikelihood of the text after [prefix], and as the sum of its
// per-token log-probs.
func TestRollingOneWindow(t *testing.T) {
	e := openFixture(t, "tiny-llama", Options{BatchSize: 4})
	ids := []int32{1, 450, 4996, 17354, 1701, 432, 17204, 975, 278, 17366, 11203}
	ctx := context.Background()
	roll, err := e.LoglikelihoodRolling(ctx, []lm.RollingRequest{{IDs: ids}})
	if err != nil {
		t.Fatal(err)
	}
	scores, err := e.ScoreIDs(ctx, [][]int32{{e.prefix}}, [][]int32{ids}, true)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range scores[0].TokenLogProbs {
		sum += v
	}
	if roll[0].NumTokens != len(ids) || len(scores[0].TokenLogProbs) != len(ids) {
		t.Fatalf("rolling scored %d tokens, per-token %d; want %d", roll[0].NumTokens, len(scores[0].TokenLogProbs), len(ids))
	}
	if roll[0].LogProb != scores[0].LogProb {
		t.Fatalf("rolling %v != loglikelihood %v", roll[0].LogProb, scores[0].LogProb)
	}
	if d := roll[0].LogProb - sum; d > 1e-9 || d < -1e-9 {
		t.Fatalf("rolling %v != Σ token logprobs %v", roll[0].LogProb, sum)
	}
}

// TestRollingManyWindows: with max_length 4, the sum over windows equals
// the sum of per-window loglikelihoods built by hand from lm-eval's rules.
func TestRollingManyWindows(t *testing.T) {
	e := openFixture(t, "tiny-llama", Options{BatchSize: 4, MaxLength: 4})
	ids := []int32{450, 4996, 17354, 1701, 432, 17204, 975, 278, 17366, 11203}
	p := e.prefix
	// Windows (see TestRollingWindowsTable): predict 0-3 | 4-7 | 8-9.
	ctxs := [][]int32{{p}, {ids[3]}, {ids[5], ids[6], ids[7]}}
	conts := [][]int32{ids[0:4], ids[4:8], ids[8:10]}
	ctx := context.Background()
	roll, err := e.LoglikelihoodRolling(ctx, []lm.RollingRequest{{IDs: ids}})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := e.ScoreIDs(ctx, ctxs, conts, false)
	if err != nil {
		t.Fatal(err)
	}
	sum := parts[0].LogProb + parts[1].LogProb + parts[2].LogProb
	if roll[0].LogProb != sum || roll[0].NumTokens != len(ids) {
		t.Fatalf("rolling (%v, %d tokens), windows by hand (%v, %d)", roll[0].LogProb, roll[0].NumTokens, sum, len(ids))
	}
}
