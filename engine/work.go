package engine

// Work is what an engine ran between two points: its scoring and
// generation counters together (a results file's goeval_timing is made of
// it: cmd/goeval's timingOf).
type Work struct {
	Stats
	Gen GenStats
	// CacheLoads are the compiles this process loaded from the compile
	// cache instead of compiling (compilecache.go; counted in Compiles too).
	// The count is the process's, not the engine's: engines compiling at
	// once in one process (replicas) each see the others' loads.
	CacheLoads int
}

// Work returns the cumulative counters; subtract an earlier Work (Since)
// for one evaluation's share.
func (e *Engine) Work() Work {
	hits, _ := CompileCacheStats()
	return Work{Stats: e.Stats(), Gen: e.GenStats(), CacheLoads: int(hits)}
}

// Loaded is how many of w's compiles were loads from the compile cache:
// CacheLoads, at most Compiles (CacheLoads counts the process's loads).
func (w Work) Loaded() int { return min(w.CacheLoads, w.Compiles) }

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
	s.Backoffs -= b.Backoffs
	g.Prefills -= b.Gen.Prefills
	g.PromptTokens -= b.Gen.PromptTokens
	g.PrefillTokens -= b.Gen.PrefillTokens
	g.PrefillTime -= b.Gen.PrefillTime
	g.DecodeSteps -= b.Gen.DecodeSteps
	g.DecodeTokens -= b.Gen.DecodeTokens
	g.DecodeTime -= b.Gen.DecodeTime
	return Work{Stats: s, Gen: g, CacheLoads: w.CacheLoads - b.CacheLoads}
}
