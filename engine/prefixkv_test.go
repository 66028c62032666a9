package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/lm"
)

// fewshotWorkload is mmlu-like: subjects with a few-shot block of about
// shot tokens each, questions that extend it and four short answers. The
// last subject also has a request whose context is its block alone, so a
// score falls inside that block: it must not be cached.
func fewshotWorkload(seed uint64, subjects, shot, questions, vocab int) []lm.LoglikelihoodRequest {
	rng := rand.New(rand.NewPCG(seed, 3))
	ids := randomIDs(rng, vocab)
	var out []lm.LoglikelihoodRequest
	for s := range subjects {
		block := ids(shot + rng.IntN(shot/2))
		for range questions {
			ctx := append(slices.Clone(block), ids(4+rng.IntN(12))...)
			for range 4 {
				out = append(out, lm.LoglikelihoodRequest{ContextIDs: ctx, ContinuationIDs: ids(1 + rng.IntN(3))})
			}
		}
		if s == subjects-1 {
			out = append(out, lm.LoglikelihoodRequest{ContextIDs: block, ContinuationIDs: ids(2)})
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// smallRows makes packed rows 128 tokens long for the test, so that a
// few-shot block of 72–107 tokens spans several rows.
func smallRows(t *testing.T) {
	old := packRowLengths
	packRowLengths = []int{128}
	t.Cleanup(func() { packRowLengths = old })
}

// TestPrefixCacheExact: with cached few-shot prefixes, every log-prob,
// is_greedy and token count equals the unpacked path's — bit for bit on
// the pure-Go backend, within 1e-6 per token (or twice XLA's own
// difference between unpacked batches of 1 and 3, where larger: Gemma's)
// on GOEVAL_TEST_DEVICE — for every architecture of the packing
// test; the prefixes are run once, fewer tokens are computed than with
// packing alone, and a second call finds them in the store (except where
// max_length truncates every context below a cacheable prefix).
func TestPrefixCacheExact(t *testing.T) {
	smallRows(t)
	ctx := context.Background()
	device := os.Getenv("GOEVAL_TEST_DEVICE")
	for _, m := range packModels(t) {
		t.Run(m.name, func(t *testing.T) {
			open := func(packing string, mb int, batch ...int) *Engine {
				o := m.opts
				o.Packing, o.BatchSize, o.Device, o.PrefixCacheMB = packing, append(batch, 3)[0], device, mb
				e, err := Open(m.dir, o)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
				return e
			}
			off := open("off", 0)
			reqs := fewshotWorkload(5, 2, 72, max(m.questions/2, 3), off.Config().VocabSize)
			want, err := off.Loglikelihood(ctx, reqs)
			if err != nil {
				t.Fatal(err)
			}
			bound := 0.0
			if device != "" {
				bound = max(1e-6, m.xlaFloor, 2*checkTokenLogProbs(t, open("off", 0, 1), off, reqs, math.Inf(1))) // XLA's own noise: batch 1 against 3
			}
			plain, cached := open("on", -1), open("on", DefaultPrefixCacheMB) // explicit: XLA devices have no cache by default
			if _, err := plain.Loglikelihood(ctx, reqs); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := cached.Loglikelihood(ctx, reqs)
				if err != nil {
					t.Fatal(err)
				}
				sameScores(t, got, want, bound)
			}
			s, p := cached.Stats(), plain.Stats()
			t.Logf("tokens computed/requested: cached prefixes %d/%d, packing alone %d/%d; prefixes run %d, found %d",
				s.TokensComputed/2, s.TokensRequested/2, p.TokensComputed, p.TokensRequested, s.PrefixComputed, s.PrefixHits)
			if m.opts.MaxLength > 0 && m.opts.MaxLength < plan.MinCachedPrefix { // contexts truncated below any cached prefix
				if s.PrefixComputed != 0 {
					t.Errorf("max_length %d: %d prefixes cached, want none", m.opts.MaxLength, s.PrefixComputed)
				}
			} else if orig := off.Config().LongRopeLength(); orig > 0 && orig < plan.MinCachedPrefix { // every item sharing a prefix is past the switch: unpacked
				if s.PrefixComputed != 0 {
					t.Errorf("LongRoPE switching at %d: %d prefixes cached, want none", orig, s.PrefixComputed)
				}
			} else if s.PrefixComputed < 1 || s.PrefixHits < s.PrefixComputed || s.TokensComputed/2 >= p.TokensComputed {
				t.Errorf("cached prefixes: %d run, %d found, %d tokens per call: want ≥ 1 run, each found again on the second call, fewer tokens than packing alone (%d)",
					s.PrefixComputed, s.PrefixHits, s.TokensComputed/2, p.TokensComputed)
			}
			if bound > 0 {
				checkTokenLogProbs(t, off, cached, reqs, bound)
			}
		})
	}
}

// sameScores compares scores bit for bit (bound 0) or each log-prob within
// bound per token.
func sameScores(t *testing.T, got, want []lm.LoglikelihoodResult, bound float64) {
	t.Helper()
	for i := range want {
		d := math.Abs(got[i].LogProb - want[i].LogProb)
		if got[i] != want[i] && (bound == 0 || d > bound*float64(got[i].NumTokens) || got[i].NumTokens != want[i].NumTokens) {
			t.Errorf("request %d: with cached prefixes %+v, unpacked %+v", i, got[i], want[i])
		}
	}
}

// TestPrefixCacheBudget: a store too small for two prefixes keeps one
// (least recently used evicted) and still scores exactly; a store too
// small for any caches none.
func TestPrefixCacheBudget(t *testing.T) {
	smallRows(t)
	ctx := context.Background()
	dir := packModels(t)[1].dir // synth-qwen2
	open := func(o Options) *Engine {
		e, err := Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	off := open(Options{Packing: "off"})
	reqs := fewshotWorkload(9, 3, 72, 6, off.Config().VocabSize)
	want, err := off.Loglikelihood(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	one := open(Options{})
	one.prefixes.budget = one.prefixBytes(one.prefixSlots(107)) // any one block (72–107 tokens), not two
	tiny := open(Options{})
	tiny.prefixes.budget = tiny.prefixBytes(8)
	for _, e := range []*Engine{one, tiny} {
		for range 2 {
			got, err := e.Loglikelihood(ctx, reqs)
			if err != nil {
				t.Fatal(err)
			}
			sameScores(t, got, want, 0)
			if e.prefixes.used > e.prefixes.budget || e.Stats().PrefixPeakBytes > e.prefixes.budget {
				t.Errorf("store holds %d bytes (peak %d) over its budget %d", e.prefixes.used, e.Stats().PrefixPeakBytes, e.prefixes.budget)
			}
		}
	}
	if s := one.Stats(); len(one.prefixes.entries) != 1 || s.PrefixComputed <= 2 {
		t.Errorf("one-prefix store: %d entries, %d prefixes run, %d found: want 1 entry, and the 2 cacheable blocks run more than once each over 2 calls (evicted)", len(one.prefixes.entries), s.PrefixComputed, s.PrefixHits)
	} else {
		t.Logf("one-prefix store over 2 calls: %d prefixes run, %d found", s.PrefixComputed, s.PrefixHits)
	}
	if s := tiny.Stats(); s.PrefixComputed != 0 || len(tiny.prefixes.entries) != 0 {
		t.Errorf("tiny store: %d prefixes run: want none cached", s.PrefixComputed)
	}
}

// TestPrefixStoreLRU: entries are evicted least recently used first and
// the bytes held never pass the budget.
func TestPrefixStoreLRU(t *testing.T) {
	s := &prefixStore{budget: 30, entries: map[string]*prefixEntry{}}
	kv := func() []*tensors.Tensor { return []*tensors.Tensor{tensors.FromValue([]float32{1})} }
	for _, k := range []string{"a", "b", "c"} {
		if !s.put(k, kv(), 10) {
			t.Fatalf("put %s refused", k)
		}
	}
	s.get("a") // b is now the least recently used
	s.put("d", kv(), 10)
	if s.get("b") != nil || s.get("a") == nil || s.get("c") == nil || s.get("d") == nil || s.used != 30 {
		t.Errorf("after a, b, c, use a, put d: entries %v, %d bytes: want b evicted, 30 bytes", keys(s), s.used)
	}
	if s.put("big", kv(), 31) || s.used != 30 {
		t.Errorf("an entry over the budget was stored")
	}
	s.put("e", kv(), 25) // evicts until 25 fit: the three least recently used
	if len(s.entries) != 1 || s.get("e") == nil || s.used != 25 {
		t.Errorf("after put e (25 of 30): entries %v, %d bytes: want only e", keys(s), s.used)
	}
	s.close()
	if len(s.entries) != 0 || s.used != 0 {
		t.Errorf("close left %v", keys(s))
	}
}

// keys lists a store's keys.
func keys(s *prefixStore) []string {
	var out []string
	for k := range s.entries {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
