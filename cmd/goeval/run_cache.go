package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/buildinfo"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmcache"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/report"
)

// Interrupted runs: the request cache (--use-cache), skipping targets whose
// results exist (sweeps and multi-adapter runs) and --overwrite.

// openedModel is one target ready to evaluate: its LM, the engine behind
// it (nil for the fake LM) and its results-file keys.
type openedModel struct {
	lm     lm.LM
	eng    *engine.Engine
	apiKey string // an API model's cache identity (kind, URL, name)
	extra  map[string]any
}

// chatTemplate is the model's chat template, the text a results file
// records with --apply-chat-template ("" when it has none).
func (m openedModel) chatTemplate() string {
	if ct, ok := m.lm.(lm.ChatTemplater); ok {
		return ct.ChatTemplate()
	}
	return ""
}

// progressChunkEnv, for tests, sends requests to the model in chunks of N
// and prints a progress line after every chunk (instead of at most every
// 10 seconds), so a test can interrupt a run at a known point.
const progressChunkEnv = "GOEVAL_PROGRESS_CHUNK"

// testProgress applies progressChunkEnv to opts; false when it is unset.
func testProgress(opts *goevalpkg.Options) bool {
	n, err := strconv.Atoi(os.Getenv(progressChunkEnv))
	if err != nil || n < 1 {
		return false
	}
	opts.ProgressChunk = n
	opts.Progress = func(p goevalpkg.Progress) {
		if !p.Partial { // a line per call: its answers are cached
			printProgress(os.Stderr, p)
		}
	}
	return true
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

// withCache wraps m's LM in the --use-cache store; the returned function
// closes the store and prints the cache line (after a failed evaluation
// only when requests were answered).
func (f *runFlags) withCache(m openedModel) (lm.LM, func(ok bool), error) {
	if f.useCache == "" {
		return m.lm, func(bool) {}, nil
	}
	key, err := cacheKey(m)
	if err != nil {
		return nil, nil, err
	}
	store, err := lmcache.Open(f.useCache, key)
	if err != nil {
		return nil, nil, err
	}
	c := lmcache.Wrap(m.lm, store, lmcache.Options{})
	return c, func(ok bool) {
		defer store.Close()
		st := c.Stats()
		if !ok && st.Hits+st.Computed == 0 {
			return
		}
		fmt.Fprintf(os.Stderr, "cache %s: %d of %d requests reused, %d computed\n", f.useCache, st.Hits, st.Hits+st.Computed, st.Computed)
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
	fmt.Fprintf(os.Stderr, "engine: %d forward passes (%d scoring, %d prefill, %d decode), %d tokens (%d scored, %d padded; %d prefilled, %d decoded), %d shapes compiled in %v\n",
		s.Batches+g.Prefills+g.DecodeSteps, s.Batches, g.Prefills, g.DecodeSteps, s.Tokens+g.PrefillTokens+g.DecodeTokens,
		s.Tokens, s.PaddedTokens, g.PrefillTokens, g.DecodeTokens, s.Compiles, s.CompileTime.Round(time.Millisecond))
	if s.TokensRequested > 0 {
		fmt.Fprintf(os.Stderr, "engine: scoring computed %d of the %d tokens its requests hold (%.2f; shared contexts, prefixes and packed rows)\n",
			s.TokensComputed, s.TokensRequested, float64(s.TokensComputed)/float64(s.TokensRequested))
	}
	if s.PrefixComputed > 0 {
		fmt.Fprintf(os.Stderr, "engine: %d cached prefixes run, %d found in the store (at most %.1f MiB held)\n",
			s.PrefixComputed, s.PrefixHits, float64(s.PrefixPeakBytes)/(1<<20))
	}
}

// promptExtra are the results-file keys of the prompt settings, as lm-eval
// writes them (report.PromptFields).
func (f *runFlags) promptExtra(chatTemplate string) map[string]any {
	p := report.PromptSettings{SystemInstruction: f.sysInstr, ApplyChatTemplate: f.chat, ChatTemplate: chatTemplate}
	if f.chat || f.multiturn.set {
		v := f.multiturn.or(f.chat)
		p.FewshotAsMultiturn = &v
	}
	return report.PromptFields(p)
}

// runWant describes target t's results file before it is evaluated.
func (f *runFlags) runWant(t goevalpkg.Target, opts goevalpkg.Options, seeds []any, gk map[string]any, chatTemplate string) (report.RunWant, error) {
	ts, groups, err := f.index.Expand(opts.Tasks)
	if err != nil {
		return report.RunWant{}, err
	}
	w := report.RunWant{Config: report.RunConfig(f.settings(t, seeds, gk)), NShot: map[string]int{},
		Extra: f.promptExtra(chatTemplate)}
	for _, task := range ts {
		w.NShot[task.Name()] = task.NumFewshot(opts.Task)
	}
	for _, g := range groups {
		w.Groups = append(w.Groups, g.Name)
	}
	return w, nil
}

// chatTemplateOf reads model's chat template without loading its weights
// ("" without --apply-chat-template).
func (f *runFlags) chatTemplateOf(model string) (string, error) {
	switch {
	case !f.chat:
		return "", nil
	case model == "fake":
		return lmtest.Template, nil
	}
	tok, err := tokenizer.Load(model)
	if err != nil {
		return "", err
	}
	return tok.ChatTemplate(), nil
}

// skipExisting reports whether target t of a run of several targets
// already has results of the same settings under --output-path (and says
// so); never without --output-path, with --overwrite or for a single
// target.
func (f *runFlags) skipExisting(t goevalpkg.Target, targets int, opts goevalpkg.Options, seeds []any, gk map[string]any) (bool, error) {
	if f.out == "" || f.overwrite || targets < 2 {
		return false, nil
	}
	tmpl, err := f.chatTemplateOf(t.Base)
	if err != nil {
		return false, err
	}
	w, err := f.runWant(t, opts, seeds, gk, tmpl)
	if err != nil {
		return false, err
	}
	path, ok, err := report.FindRun(f.out, t.Name, w)
	if ok {
		fmt.Fprintf(os.Stderr, "model %s: results exist (%s); skipping — use --overwrite to evaluate again\n", t.Name, path)
	}
	return ok, err
}

// removeOlder, with --overwrite, deletes t's results (and samples) files of
// the same settings other than the one just written.
func (f *runFlags) removeOlder(t goevalpkg.Target, written string, opts goevalpkg.Options, seeds []any, gk map[string]any, chatTemplate string) error {
	if !f.overwrite {
		return nil
	}
	w, err := f.runWant(t, opts, seeds, gk, chatTemplate)
	if err != nil {
		return err
	}
	paths, err := report.MatchingRuns(f.out, t.Name, w)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if p == written {
			continue
		}
		removed, err := report.RemoveRun(p)
		for _, r := range removed {
			fmt.Fprintln(os.Stderr, "--overwrite: removed", r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
