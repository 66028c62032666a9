package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goeval/goeval/lm"
)

// TestPrefixCacheLongRope: on a LongRoPE model (switch at 100 tokens) a
// few-shot block of 97 tokens is cached once and shared by questions whose
// rows stay at or below the switch (short factors), while its slots are
// padded to 112, past the switch: the prefix must still take the short
// factors, as the questions' one-pass rows do. A longer question (past
// the switch, long factors everywhere, its block too) is scored unpacked.
// Every score equals packing off's, bit for bit.
func TestPrefixCacheLongRope(t *testing.T) {
	smallRows(t) // rows of 128 tokens: the block spans several
	const orig, block = 100, 97
	dir := longRopeModelAt(t, orig, 1024, 12)
	rng := rand.New(rand.NewPCG(7, 9))
	ids := randomIDs(rng, 256)
	shared := ids(block)
	var reqs []lm.LoglikelihoodRequest
	for q := range 16 {
		ctx := append(slices.Clone(shared), ids(2+q%2)...) // 99–100 tokens
		for range 3 {
			reqs = append(reqs, lm.LoglikelihoodRequest{ContextIDs: ctx, ContinuationIDs: ids(1)})
		}
	}
	long := append(slices.Clone(shared), ids(20)...) // 117 tokens: past the switch
	reqs = append(reqs, lm.LoglikelihoodRequest{ContextIDs: long, ContinuationIDs: ids(2)})

	open := func(packing string, mb int) *Engine {
		e, err := Open(dir, Options{Packing: packing, BatchSize: 3, PrefixCacheMB: mb})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	off, cached := open("off", 0), open("on", DefaultPrefixCacheMB)
	if got := cached.prefixSlots(block); got <= orig {
		t.Fatalf("the block's %d prefix slots do not cross the switch at %d: the test checks nothing", got, orig)
	}
	want, err := off.Loglikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cached.Loglikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	sameScores(t, got, want, 0)
	if s := cached.Stats(); s.PrefixComputed < 1 || s.TokensComputed >= off.Stats().TokensComputed {
		t.Errorf("prefixes cached %d, tokens computed %d (packing off %d): want the block cached and fewer tokens",
			s.PrefixComputed, s.TokensComputed, off.Stats().TokensComputed)
	}
}
