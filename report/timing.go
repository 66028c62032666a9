package report

import (
	"math"
	"time"

	"github.com/goeval/goeval/internal/py"
)

// Timing is what the engine ran for one evaluation, as the results file's
// goeval_timing object records it (TimingKey). Like
// total_evaluation_time_seconds it differs between runs of the same
// evaluation: a resumed run computes less.
type Timing struct {
	ForwardPasses int // scoring passes, prefills and decode steps
	// ScoringTokensRequested are the tokens scoring requests hold;
	// ScoringTokensComputed those the engine ran (fewer where contexts and
	// prefixes were shared); ScoringPaddedTokens the padding it ran.
	ScoringTokensRequested, ScoringTokensComputed, ScoringPaddedTokens int
	// CachedPrefixesComputed and CachedPrefixHits are the cached prefixes
	// run and found in the store; CachedPrefixPeakBytes the most it held.
	CachedPrefixesComputed, CachedPrefixHits int
	CachedPrefixPeakBytes                    int64
	// PromptTokensRequested are generation prompts' tokens, PrefillTokens
	// those prefilled (fewer where prompts share a prefix), DecodedTokens
	// the tokens generated.
	PromptTokensRequested, PrefillTokens, DecodedTokens int
	// ShapesCompiled are the graph shapes compiled, ShapesFromCache those
	// loaded from the compile cache instead (XLA devices); Compile is the
	// time spent waiting for either.
	ShapesCompiled, ShapesFromCache int
	Compile, Forward                time.Duration // waiting for compiles; running graphs
	// ScoringBatch is the most rows a scoring pass took by the end (the
	// auto batch after any out-of-memory back-offs), GenerationBatch the
	// decode batch (cache rows) of the last generation, Backoffs the
	// out-of-memory halvings of either; PeakRSS the process's peak
	// resident memory so far, in bytes: host memory, which holds the
	// weights and activations on the CPU devices but not a GPU's. Each is
	// written only when not 0.
	ScoringBatch, GenerationBatch, Backoffs int
	PeakRSS                                 int64
}

// fields is t as the results file writes it, in goeval's key order:
// seconds to the millisecond, the computed ratio to four places (only with
// scoring tokens), the prefix store's peak in MiB to one place, then the
// shapes loaded from the compile cache, batches, back-offs and peak
// resident MiB that are not 0.
func (t Timing) fields() *py.Map[any] {
	secs := func(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }
	m := py.NewMap[any]()
	m.Set("forward_passes", t.ForwardPasses)
	m.Set("scoring_tokens_requested", t.ScoringTokensRequested)
	m.Set("scoring_tokens_computed", t.ScoringTokensComputed)
	if t.ScoringTokensRequested > 0 {
		m.Set("scoring_computed_ratio", math.Round(float64(t.ScoringTokensComputed)/float64(t.ScoringTokensRequested)*1e4)/1e4)
	}
	m.Set("scoring_padded_tokens", t.ScoringPaddedTokens)
	m.Set("cached_prefixes_computed", t.CachedPrefixesComputed)
	m.Set("cached_prefix_hits", t.CachedPrefixHits)
	m.Set("cached_prefix_peak_mb", math.Round(float64(t.CachedPrefixPeakBytes)/(1<<20)*10)/10)
	m.Set("prompt_tokens_requested", t.PromptTokensRequested)
	m.Set("prefill_tokens", t.PrefillTokens)
	m.Set("decoded_tokens", t.DecodedTokens)
	m.Set("shapes_compiled", t.ShapesCompiled)
	m.Set("compile_seconds", secs(t.Compile))
	m.Set("forward_seconds", secs(t.Forward))
	for _, kv := range []struct {
		key string
		v   int
	}{{"shapes_from_compile_cache", t.ShapesFromCache}, {"scoring_batch_size", t.ScoringBatch}, {"generation_batch_size", t.GenerationBatch}, {"oom_backoffs", t.Backoffs}} {
		if kv.v != 0 {
			m.Set(kv.key, kv.v)
		}
	}
	if t.PeakRSS > 0 {
		m.Set("peak_rss_mb", int64(math.Round(float64(t.PeakRSS)/(1<<20))))
	}
	return m
}

// Add is the work of two evaluations together (goeval merge sums its
// shards'): counts and times add up, the prefix store's peak is the
// larger one.
func (t Timing) Add(u Timing) Timing {
	t.ForwardPasses += u.ForwardPasses
	t.ScoringTokensRequested += u.ScoringTokensRequested
	t.ScoringTokensComputed += u.ScoringTokensComputed
	t.ScoringPaddedTokens += u.ScoringPaddedTokens
	t.CachedPrefixesComputed += u.CachedPrefixesComputed
	t.CachedPrefixHits += u.CachedPrefixHits
	t.CachedPrefixPeakBytes = max(t.CachedPrefixPeakBytes, u.CachedPrefixPeakBytes)
	t.PromptTokensRequested += u.PromptTokensRequested
	t.PrefillTokens += u.PrefillTokens
	t.DecodedTokens += u.DecodedTokens
	t.ShapesCompiled += u.ShapesCompiled
	t.ShapesFromCache += u.ShapesFromCache
	t.Compile += u.Compile
	t.Forward += u.Forward
	return t
}
