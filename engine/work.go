package engine

import (
	"math"
	"time"

	"github.com/goeval/goeval/internal/py"
)

// Work is what an engine ran between two points: its scoring and
// generation counters together (results files' goeval_timing).
type Work struct {
	Stats
	Gen GenStats
}

// Work returns the cumulative counters; subtract an earlier Work (Since)
// for one evaluation's share.
func (e *Engine) Work() Work { return Work{Stats: e.Stats(), Gen: e.GenStats()} }

// Since is w minus an earlier snapshot b.
func (w Work) Since(b Work) Work {
	s, g := w.Stats, w.Gen
	s.Compiles -= b.Compiles
	s.CompileTime -= b.CompileTime
	s.Batches -= b.Batches
	s.Tokens -= b.Tokens
	s.PaddedTokens -= b.PaddedTokens
	s.TokensRequested -= b.TokensRequested
	s.TokensComputed -= b.TokensComputed
	s.ExecTime -= b.ExecTime
	s.HeadCalls -= b.HeadCalls
	s.PrefixComputed -= b.PrefixComputed
	s.PrefixHits -= b.PrefixHits
	g.Prefills -= b.Gen.Prefills
	g.PromptTokens -= b.Gen.PromptTokens
	g.PrefillTokens -= b.Gen.PrefillTokens
	g.PrefillTime -= b.Gen.PrefillTime
	g.DecodeSteps -= b.Gen.DecodeSteps
	g.DecodeTokens -= b.Gen.DecodeTokens
	g.DecodeTime -= b.Gen.DecodeTime
	return Work{Stats: s, Gen: g}
}

// Fields are the results file's goeval_timing object: forward passes,
// tokens requested and computed by scoring (and their ratio: < 1 where
// contexts and prefixes were shared), the cached prefixes run and found
// in the store and the most it has held since the engine opened
// (prefixkv.go), generation prompts' tokens and those
// prefilled (fewer where prompts share a prefix), tokens decoded, shapes
// compiled and the seconds spent compiling and running.
func (w Work) Fields() *py.Map[any] {
	secs := func(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }
	m := py.NewMap[any]()
	m.Set("forward_passes", w.Batches+w.Gen.Prefills+w.Gen.DecodeSteps)
	m.Set("scoring_tokens_requested", w.TokensRequested)
	m.Set("scoring_tokens_computed", w.TokensComputed)
	if w.TokensRequested > 0 {
		m.Set("scoring_computed_ratio", math.Round(float64(w.TokensComputed)/float64(w.TokensRequested)*1e4)/1e4)
	}
	m.Set("scoring_padded_tokens", w.PaddedTokens)
	m.Set("cached_prefixes_computed", w.PrefixComputed)
	m.Set("cached_prefix_hits", w.PrefixHits)
	m.Set("cached_prefix_peak_mb", math.Round(float64(w.PrefixPeakBytes)/(1<<20)*10)/10)
	m.Set("prompt_tokens_requested", w.Gen.PromptTokens)
	m.Set("prefill_tokens", w.Gen.PrefillTokens)
	m.Set("decoded_tokens", w.Gen.DecodeTokens)
	m.Set("shapes_compiled", w.Compiles)
	m.Set("compile_seconds", secs(w.CompileTime))
	m.Set("forward_seconds", secs(w.ExecTime+w.Gen.PrefillTime+w.Gen.DecodeTime))
	return m
}
