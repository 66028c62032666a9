package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/goeval/goeval/lm"
)

// prefixPrompts is a generation workload over ids in [3, vocab): n prompts
// after one 40-id few-shot prefix (suffixes of 1–12 ids, one of them the
// prefix's own continuation by a single id), two prompts that share only
// a 35-id start with each other, and two unrelated short prompts; greedy
// except one seeded sampled request.
func prefixPrompts(seed uint64, n, vocab int) []lm.GenerateRequest {
	rng := rand.New(rand.NewPCG(seed, 3))
	ids := randomIDs(rng, vocab)
	shots := ids(40)
	var out []lm.GenerateRequest
	for i := range n {
		ctx := append(slices.Clone(shots), ids(1+rng.IntN(12))...)
		if i == 0 {
			ctx = append(slices.Clone(shots), ids(1)...)
		}
		out = append(out, lm.GenerateRequest{ContextIDs: ctx, MaxTokens: 6})
	}
	other := ids(35)
	out = append(out,
		lm.GenerateRequest{ContextIDs: append(slices.Clone(other), ids(3)...), MaxTokens: 5},
		lm.GenerateRequest{ContextIDs: append(slices.Clone(other), ids(9)...), MaxTokens: 5, Temperature: 0.8, TopP: 0.9, Seed: 7},
		lm.GenerateRequest{ContextIDs: ids(5), MaxTokens: 4},
		lm.GenerateRequest{ContextIDs: ids(17), MaxTokens: 4})
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestGeneratePrefixShared: generations with shared prompt prefixes
// prefilled once (Packing on) are identical to whole-prompt prefills
// (off), token for token, at batch sizes that admit a group in one or in
// several prefills; the few-shot prefix and the 35-id pair's prefix run
// once each, so the prefilled tokens drop by (n−1)·40 + 35 — on every
// architecture of the packing test (sliding windows, soft-capping, a
// separate-mode LoRA adapter; with max_length 24 the prompts lose their
// shared start to truncation and only the outputs are compared) — and
// with prefill shapes fixed per group as on a GPU (padded rows and
// lengths).
//
// GOEVAL_TEST_DEVICE=xla-cpu runs it there (make parity), where a near-tie
// could flip a greedy token but these do not.
func TestGeneratePrefixShared(t *testing.T) {
	for _, m := range packModels(t) {
		t.Run(m.name, func(t *testing.T) { checkPrefixShared(t, m) })
	}
}

func checkPrefixShared(t *testing.T, m packModel) {
	device := os.Getenv("GOEVAL_TEST_DEVICE")
	const n = 7
	var want []lm.GenerateResult
	var wantStats GenStats
	for _, run := range []struct {
		packing string
		batch   int
		fixed   bool // prefill shapes fixed per group, as on a GPU (genshapes.go)
	}{{"off", 4, false}, {"on", 4, false}, {"on", 2, false}, {"on", 16, false}, {"on", 4, true}, {"off", 3, true}} {
		o := m.opts
		o.BatchSize, o.Packing, o.Device = run.batch, run.packing, device
		e, err := Open(m.dir, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		e.fixShapes = run.fixed
		reqs := prefixPrompts(5, n, e.Config().VocabSize)
		got, err := e.GenerateUntil(context.Background(), reqs)
		if err != nil {
			t.Fatal(err)
		}
		s := e.GenStats()
		if want == nil {
			want, wantStats = got, s
			continue
		}
		for i := range want {
			if !slices.Equal(got[i].IDs, want[i].IDs) || got[i].StopReason != want[i].StopReason {
				t.Errorf("packing %s batch %d fixed shapes %v: request %d generated %v (%s), whole prompts %v (%s)",
					run.packing, run.batch, run.fixed, i, got[i].IDs, got[i].StopReason, want[i].IDs, want[i].StopReason)
			}
		}
		saved := (n-1)*40 + 35
		if m.opts.MaxLength != 0 || run.packing == "off" {
			continue // prompts left-truncated to 18 ids, or whole: nothing shared to count
		}
		if orig := e.Config().LongRopeLength(); orig > 0 && orig < 35 { // LongRoPE: every prompt sharing a start is past the switch, prefilled whole
			if s.PrefillTokens != wantStats.PrefillTokens {
				t.Errorf("batch %d: LongRoPE prefilled %d tokens, want every prompt whole (%d)", run.batch, s.PrefillTokens, wantStats.PrefillTokens)
			}
			continue
		}
		if s.PromptTokens != wantStats.PromptTokens || s.PrefillTokens != wantStats.PrefillTokens-saved {
			t.Errorf("batch %d: prompt tokens %d, prefilled %d; want %d and %d", run.batch, s.PromptTokens, s.PrefillTokens,
				wantStats.PromptTokens, wantStats.PrefillTokens-saved)
		}
	}
}

// TestGenBatchAuto: with the batch size left to the engine, the device
// measures its decode batch once (a candidate size, remembered for the
// cache length) and generates what an explicit batch of 4 generates — on
// goeval's pure-Go backend here, on XLA with GOEVAL_TEST_DEVICE=xla-cpu
// (make parity).
func TestGenBatchAuto(t *testing.T) {
	device := os.Getenv("GOEVAL_TEST_DEVICE")
	fixed := openFixture(t, "tiny-qwen3", Options{BatchSize: 4, Device: device})
	auto := openFixture(t, "tiny-qwen3", Options{Device: device})
	generateLikeBatch4(t, fixed, auto, prefixPrompts(9, 30, fixed.Config().VocabSize))
	measured := auto.gen.autoBatch
	if len(measured) != 1 {
		t.Fatalf("measured batches %v; want one cache length", measured)
	}
	for s, b := range measured {
		if !slices.Contains(genBatchCandidates, b) {
			t.Errorf("cache length %d: batch %d is not a candidate %v", s, b, genBatchCandidates)
		}
		t.Logf("cache length %d: measured batch %d", s, b)
	}
}

// TestGenGroups: prompts after one shared prefix form a group with that
// prefix; prompts that share nothing (or less than minSharedPrefix) form
// one group with prefix 0, so they are prefilled together; every item is
// in exactly one group, longest prompt first within a group.
func TestGenGroups(t *testing.T) {
	seq := func(start, n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(start + i)
		}
		return out
	}
	shots := seq(100, 40)
	items := []genItem{
		{ctx: append(slices.Clone(shots), 1, 2)},
		{ctx: seq(500, 10)},
		{ctx: append(slices.Clone(shots), 3)},
		{ctx: seq(600, 50)},
		{ctx: append(seq(100, 20), 7, 8)}, // shares 20 ids only
	}
	groups := genGroups(items, 0)
	if len(groups) != 2 {
		t.Fatalf("groups %+v; want the shared-prefix group and one group of the rest", groups)
	}
	byPrefix := map[int][]int{}
	for _, g := range groups {
		byPrefix[g.prefix] = g.members
	}
	if !slices.Equal(byPrefix[40], []int{0, 2}) || !slices.Equal(byPrefix[0], []int{3, 4, 1}) {
		t.Errorf("groups by prefix %v; want 40: [0 2], 0: [3 4 1]", byPrefix)
	}
}

// TestGenBatchUntimed: on goeval's pure-Go backend, requests that fit
// genUntimedRows rows all decode together without timing candidates, and
// generate what an explicit batch of 4 generates.
func TestGenBatchUntimed(t *testing.T) {
	auto := openFixture(t, "tiny-qwen3", Options{Device: os.Getenv("GOEVAL_TEST_DEVICE")})
	if !auto.cheapShapes() {
		t.Skipf("backend %s times its decode batch (TestGenBatchAuto)", auto.backend.String())
	}
	fixed := openFixture(t, "tiny-qwen3", Options{BatchSize: 4})
	before := auto.GenStats()
	got := generateLikeBatch4(t, fixed, auto, prefixPrompts(11, 12, fixed.Config().VocabSize))
	if len(auto.gen.autoBatch) != 0 {
		t.Errorf("12 requests timed their batch: %v", auto.gen.autoBatch)
	}
	// One row each, all at once: every decode step serves all 12 (16 rows).
	after := auto.GenStats()
	maxTokens := 0
	for _, r := range got {
		maxTokens = max(maxTokens, len(r.IDs))
	}
	if steps := after.DecodeSteps - before.DecodeSteps; steps > maxTokens {
		t.Errorf("%d decode steps for at most %d tokens per request: not one batch", steps, maxTokens)
	}
}

// generateLikeBatch4 generates reqs on fixed (an explicit batch of 4) and
// on auto, fails the test where any request's ids differ, and returns
// auto's results.
func generateLikeBatch4(t *testing.T, fixed, auto *Engine, reqs []lm.GenerateRequest) []lm.GenerateResult {
	t.Helper()
	want, err := fixed.GenerateUntil(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := auto.GenerateUntil(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !slices.Equal(got[i].IDs, want[i].IDs) {
			t.Errorf("request %d: auto batch generated %v, batch 4 %v", i, got[i].IDs, want[i].IDs)
		}
	}
	return got
}
