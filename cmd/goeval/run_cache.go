package main

import (
	"fmt"
	"os"
	"time"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/buildinfo"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmcache"
	"github.com/goeval/goeval/report"
)

// Interrupted runs: the request cache (--use-cache), skipping targets whose
// results exist (sweeps and multi-adapter runs) and --overwrite.

// openedModel is one target ready to evaluate: its LM, the engine behind
// it (nil for the fake and API LMs) and its facts for the results file.
type openedModel struct {
	lm     lm.LM
	eng    *engine.Engine
	apiKey string   // an API model's cache identity (kind, URL, name)
	info   *lm.Info // what its results file records of its tokenizer (nil: nothing)
	// replicas are the engines of --devices when there are several (eng is
	// the first; lm deals requests to them); nil otherwise.
	replicas []*engine.Engine
}

// chatTemplate is the model's chat template, the text a results file
// records with --apply-chat-template ("" when it has none).
func (m openedModel) chatTemplate() string {
	if ct, ok := m.lm.(lm.ChatTemplater); ok {
		return ct.ChatTemplate()
	}
	return ""
}

// cacheKey is the model identity a target's cache file is keyed by: "fake"
// for the fake LM, else goeval's version and the engine's fingerprint.
func cacheKey(m openedModel) (string, error) {
	if m.apiKey != "" {
		return m.apiKey, nil
	}
	if m.eng == nil {
		return "fake", nil
	}
	fp, err := m.eng.Fingerprint()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("goeval %s %s\nengine %s", buildinfo.Version(), buildinfo.GitHash(), fp), nil
}

// withCache wraps m's LM in the --use-cache store in dir; the returned
// function closes the store, prints the cache line (after a failed
// evaluation only when requests were answered) and returns the counts.
func withCache(dir string, m openedModel) (lm.LM, func(ok bool) lmcache.Stats, error) {
	if dir == "" {
		return m.lm, func(bool) lmcache.Stats { return lmcache.Stats{} }, nil
	}
	key, err := cacheKey(m)
	if err != nil {
		return nil, nil, err
	}
	store, err := lmcache.Open(dir, key)
	if err != nil {
		return nil, nil, err
	}
	c := lmcache.Wrap(m.lm, store, lmcache.Options{})
	return c, func(ok bool) lmcache.Stats {
		defer store.Close()
		st := c.Stats()
		if !ok && st.Hits+st.Computed == 0 {
			return st
		}
		fmt.Fprintf(os.Stderr, "cache %s: %d of %d requests reused, %d computed\n", dir, st.Hits, st.Hits+st.Computed, st.Computed)
		return st
	}, nil
}

// printEngineStats prints the engine's work for one target (w: its share
// of the engine's counters; nothing after a failed evaluation that ran
// nothing): forward passes (scoring batches, generation prefills and
// decode steps), tokens run and compiles.
func printEngineStats(w engine.Work, ok bool) {
	s, g := w.Stats, w.Gen
	if !ok && s.Batches+g.Prefills+g.DecodeSteps == 0 {
		return
	}
	loaded := ""
	if n := w.Loaded(); n > 0 {
		loaded = fmt.Sprintf(" (%d of them loaded from the compile cache)", n)
	}
	fmt.Fprintf(os.Stderr, "engine: %d forward passes (%d scoring, %d prefill, %d decode), %d tokens (%d scored, %d padded; %d prefilled, %d decoded), %d shapes compiled in %v%s\n",
		s.Batches+g.Prefills+g.DecodeSteps, s.Batches, g.Prefills, g.DecodeSteps, s.Tokens+g.PrefillTokens+g.DecodeTokens,
		s.Tokens, s.PaddedTokens, g.PrefillTokens, g.DecodeTokens, s.Compiles, s.CompileTime.Round(time.Millisecond), loaded)
	if s.TokensRequested > 0 {
		fmt.Fprintf(os.Stderr, "engine: scoring computed %d of the %d tokens its requests hold (%.2f; shared contexts, prefixes and packed rows)\n",
			s.TokensComputed, s.TokensRequested, float64(s.TokensComputed)/float64(s.TokensRequested))
	}
	if s.PrefixComputed > 0 {
		fmt.Fprintf(os.Stderr, "engine: %d cached prefixes run, %d found in the store (at most %.1f MiB held)\n",
			s.PrefixComputed, s.PrefixHits, float64(s.PrefixPeakBytes)/(1<<20))
	}
	if s.Backoffs > 0 {
		fmt.Fprintf(os.Stderr, "engine: the device ran out of memory %d times; batch auto halved its rows each time (scoring batch now %d, decode batch %d)\n",
			s.Backoffs, s.Batch, g.Rows)
	}
}

// skipExisting reports whether target t of a run of several targets
// already has results of the same settings under --output-path (and says
// so); never without --output-path, with --overwrite or for a single
// target.
func (r *runner) skipExisting(t goevalpkg.Target) (bool, error) {
	p := r.plan
	if p.out.dir == "" || p.out.overwrite || len(p.targets) < 2 {
		return false, nil
	}
	tmpl, err := p.templateOf(t)
	if err != nil {
		return false, err
	}
	path, ok, err := report.FindRun(p.out.dir, t.Name, p.infoFor(t, tmpl).Want(p.nshot, p.groups))
	if ok {
		fmt.Fprintf(os.Stderr, "model %s: results exist (%s); skipping — use --overwrite to evaluate again\n", t.Name, path)
	}
	return ok, err
}

// removeOlder, with --overwrite, deletes t's results (and samples) files of
// the same settings (info's) other than the one just written.
func (r *runner) removeOlder(t goevalpkg.Target, written string, info report.RunInfo) error {
	p := r.plan
	if !p.out.overwrite {
		return nil
	}
	paths, err := report.MatchingRuns(p.out.dir, t.Name, info.Want(p.nshot, p.groups))
	if err != nil {
		return err
	}
	for _, path := range paths {
		if path == written {
			continue
		}
		removed, err := report.RemoveRun(path)
		for _, rm := range removed {
			fmt.Fprintln(os.Stderr, "--overwrite: removed", rm)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
