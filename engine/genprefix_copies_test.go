package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goeval/goeval/lm"
)

// repeatPrompts are a task's repeats as the evaluator sends them: k copies
// of each prompt, sampled, each copy with its own seed — a 60-id prompt
// and a 20-id one (shorter than minSharedPrefix) after no common prefix,
// and two 45-id prompts after one 40-id few-shot prefix.
func repeatPrompts(k, vocab int) (reqs []lm.GenerateRequest, lens []int) {
	rng := rand.New(rand.NewPCG(21, 3))
	ids := randomIDs(rng, vocab)
	shots := ids(40)
	prompts := [][]int32{ids(60), ids(20), append(slices.Clone(shots), ids(5)...), append(slices.Clone(shots), ids(5)...)}
	for p, ctx := range prompts {
		for c := range k {
			reqs = append(reqs, lm.GenerateRequest{ContextIDs: ctx, MaxTokens: 6, Temperature: 1, Seed: uint64(100*p + c)})
		}
		lens = append(lens, len(ctx))
	}
	rng.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
	return reqs, lens
}

// TestGenerateCopiesPrefillOnce: k copies of a prompt (lm-eval's repeats)
// are prefilled once — the prompt's tokens but its last once, then one
// token per copy — short prompts included, and generate exactly what
// whole-prompt prefills generate, copy by copy; copies with different
// seeds sample different continuations.
func TestGenerateCopiesPrefillOnce(t *testing.T) {
	const k = 8
	var want []lm.GenerateResult
	for _, packing := range []string{"off", "on"} {
		e := openFixture(t, "tiny-qwen3", Options{BatchSize: 4, Packing: packing})
		reqs, lens := repeatPrompts(k, e.Config().VocabSize)
		got, err := e.GenerateUntil(context.Background(), reqs)
		if err != nil {
			t.Fatal(err)
		}
		s := e.GenStats()
		whole := 0
		for _, n := range lens {
			whole += k * n
		}
		wantPrefill := whole
		if packing == "on" {
			wantPrefill = 0
			for _, n := range lens {
				wantPrefill += n - 1 + k
			}
		}
		if s.PrefillTokens != wantPrefill {
			t.Errorf("packing %s: %d tokens prefilled, want %d (whole prompts: %d)", packing, s.PrefillTokens, wantPrefill, whole)
		}
		t.Logf("packing %s: %d prompt tokens, %d prefilled in %d prefills", packing, s.PromptTokens, s.PrefillTokens, s.Prefills)
		if want == nil {
			want = got
			distinct := map[string]bool{}
			for _, r := range got {
				distinct[fmtIDs(r.IDs)] = true
			}
			if len(distinct) < len(got)/2 {
				t.Errorf("%d distinct continuations of %d sampled copies: the seeds do not vary them", len(distinct), len(got))
			}
			continue
		}
		for i := range want {
			if !slices.Equal(got[i].IDs, want[i].IDs) {
				t.Errorf("request %d: copies prefilled once generated %v, whole prompts %v", i, got[i].IDs, want[i].IDs)
			}
		}
	}
}

func fmtIDs(ids []int32) string {
	b := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		b = append(b, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
	}
	return string(b)
}

// TestCopyGroups: copies worth their own group leave their cluster (a long
// question after a short shared prefix, copies of a short prompt); two
// copies of a prompt that adds one token to a long shared prefix stay in
// the prefix's group.
func TestCopyGroups(t *testing.T) {
	seq := func(start, n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(start + i)
		}
		return out
	}
	shots := seq(100, 40)
	long := append(slices.Clone(shots), seq(900, 50)...)
	items := []genItem{
		{ctx: long}, {ctx: long}, {ctx: long}, // 3 × 50 after the prefix: own group (89 + 3 < 150)
		{ctx: append(slices.Clone(shots), 1)}, {ctx: append(slices.Clone(shots), 1)}, // 2 × 1: stay
		{ctx: append(slices.Clone(shots), 2, 3)},
		{ctx: seq(500, 10)}, {ctx: seq(500, 10)}, {ctx: seq(500, 10)}, {ctx: seq(500, 10)}, {ctx: seq(500, 10)}, // 5 × 10 → 9 + 5
	}
	byPrefix := map[int][]int{}
	for _, g := range genGroups(items, 0) {
		byPrefix[g.prefix] = g.members
	}
	want := map[int][]int{89: {0, 1, 2}, 40: {3, 4, 5}, 9: {6, 7, 8, 9, 10}}
	for p, m := range want {
		got := slices.Clone(byPrefix[p])
		slices.Sort(got)
		if !slices.Equal(got, m) {
			t.Errorf("groups by prefix %v; want %v", byPrefix, want)
			break
		}
	}
	if len(byPrefix) != len(want) {
		t.Errorf("groups by prefix %v; want %v", byPrefix, want)
	}
}
