package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/bench"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/report"
)

func init() {
	register("run", "evaluate a model on tasks and write lm-eval results/samples files", runRun)
}

// runRun is goeval run: the flags parsed, the plan settled (every input
// checked), then each target evaluated.
func runRun(args []string) error {
	f, err := parseRunFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		if errs.IsBadInput(err) {
			return err
		}
		return errs.BadInput(err)
	}
	plan, err := planRun(context.Background(), f)
	if err != nil {
		return err
	}
	defer plan.eval.Index.Close()
	ctx, stop := signalContext()
	defer stop()
	r := &runner{plan: plan}
	return r.nonFinite.exit(r.run(ctx), plan.out.failNonFinite)
}

// runner carries a plan out. Its fields are the only state a run changes
// as it goes.
type runner struct {
	plan        *runPlan
	deviceShown bool           // the "device:" line was printed
	nonFinite   nonFiniteState // the tasks with NaN/Inf log-probs so far
}

// evalOptionsHook, nil in goeval itself, lets the command's tests adjust
// each evaluation's options (resume_test.go sends requests in small chunks
// to interrupt a run at a known point).
var evalOptionsHook func(*goevalpkg.Options)

// run evaluates the plan's targets in order, skipping those whose results
// exist (several targets with --output-path, without --overwrite).
func (r *runner) run(ctx context.Context) error {
	p := r.plan
	if len(p.adapters) > 0 {
		return r.runFamily(ctx)
	}
	for i, t := range p.targets {
		if len(p.targets) > 1 {
			fmt.Fprintf(os.Stderr, "== model %d/%d: %s\n", i+1, len(p.targets), t.Name)
		}
		err := r.runModel(ctx, t)
		if err != nil && len(p.targets) > 1 {
			return fmt.Errorf("model %s: %w", t.Name, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// runModel evaluates one model of a sweep (or the only one) and writes its
// results folder (--output-path/<model name sanitized>/).
func (r *runner) runModel(ctx context.Context, t goevalpkg.Target) error {
	if skip, err := r.skipExisting(t); err != nil || skip {
		return err
	}
	m, closeLM, err := r.open(t.Base)
	if err != nil {
		return err
	}
	defer closeLM()
	return r.evaluate(ctx, t, m)
}

// open opens model: the plan's API model, the fake LM or a checkpoint.
func (r *runner) open(model string) (openedModel, func(), error) {
	p := r.plan
	switch {
	case p.api != nil:
		m, err := p.api.open()
		return m, func() {}, err
	case model == "fake":
		return openedModel{lm: lmtest.New()}, func() {}, nil
	}
	return r.openEngine(p.hub.localDir(model))
}

// engineModel is an opened engine as a target's model.
func engineModel(m *engine.Engine) openedModel {
	info := m.Info()
	return openedModel{lm: m, eng: m, info: &info}
}

// showDevice prints the "device:" line (and auto's notice) once per run.
func (r *runner) showDevice() {
	if !r.deviceShown {
		r.deviceShown = true
		printDevice(r.plan.device)
	}
}

// checkModelDir rejects a --model path that does not exist or is a file
// (Hub ids are resolved to their cache folder before this).
func checkModelDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return errs.BadInputf("model directory %s does not exist", dir)
	case err == nil && !st.IsDir():
		return errs.BadInputf("--model %s is a file; give the checkpoint directory that holds it", dir)
	}
	return nil
}

// evaluate evaluates m as target t (through --use-cache's store when set),
// prints the summary table, the cache and engine lines and, with
// --output-path, writes the results (and samples) files.
func (r *runner) evaluate(ctx context.Context, t goevalpkg.Target, m openedModel) error {
	p := r.plan
	opts := p.eval
	var err error
	if opts.Thinking, err = p.think.resolve(r.tokenizerOf(m)); err != nil {
		return err
	}
	pp := newProgressPrinter(os.Stderr, p.out.progressEvery)
	opts.Progress = pp.report
	if evalOptionsHook != nil {
		evalOptionsHook(&opts)
	}
	progress := opts.Progress
	opts.Progress = func(pr goevalpkg.Progress) {
		if m.eng != nil {
			r.showDevice()
		}
		progress(pr)
	}
	model, closeCache, err := withCache(p.out.cache, m)
	if err != nil {
		return err
	}
	var before engine.Work
	if m.eng != nil {
		before = m.work()
	}
	res, err := goevalpkg.Evaluate(ctx, model, opts)
	pp.finish()
	cached := closeCache(err == nil)
	info := p.infoFor(t, m.chatTemplate())
	info.Model = m.info
	if m.eng != nil {
		work := m.work().Since(before)
		printEngineStats(work, err == nil)
		timing := timingOf(work)
		timing.PeakRSS = bench.PeakRSS()
		info.Timing, info.Settings.NumParameters = &timing, int64(m.eng.NumParameters())
	}
	if err != nil {
		return err
	}
	defer r.nonFinite.note(t.Name, res)
	if opts.Shard.On() {
		return r.writeShard(t, m, res, info, cached)
	}
	return r.output(t, res, info)
}

// output prints res (summary table, lm-eval's --write_out and
// --show_config) and writes its files with --output-path.
func (r *runner) output(t goevalpkg.Target, res *goevalpkg.Results, info report.RunInfo) error {
	out := r.plan.out
	rep, samples, err := report.FromResults(res, info)
	if err != nil {
		return err
	}
	if out.writeOut {
		printWriteOut(os.Stderr, samples)
	}
	fmt.Print(report.RunLine(rep, r.plan.eval.Task.NumFewshot) + report.SummaryTable(rep))
	if out.showConfig {
		if err := printConfigs(os.Stdout, rep); err != nil {
			return err
		}
	}
	if !out.logSamples {
		samples = nil // --write-out logged them for its printout only
	}
	if out.dir == "" {
		return nil
	}
	path, err := report.WriteRun(out.dir, rep, samples, res.Start)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "results written to", path)
	return r.removeOlder(t, path, info)
}

// timingOf is an engine's work as the results file's goeval_timing.
func timingOf(w engine.Work) report.Timing {
	t := report.Timing{ForwardPasses: w.Batches + w.Gen.Prefills + w.Gen.DecodeSteps,
		ScoringTokensRequested: w.TokensRequested, ScoringTokensComputed: w.TokensComputed, ScoringPaddedTokens: w.PaddedTokens,
		CachedPrefixesComputed: w.PrefixComputed, CachedPrefixHits: w.PrefixHits, CachedPrefixPeakBytes: w.PrefixPeakBytes,
		PromptTokensRequested: w.Gen.PromptTokens, PrefillTokens: w.Gen.PrefillTokens, DecodedTokens: w.Gen.DecodeTokens,
		ShapesCompiled: w.Compiles - w.Loaded(), ShapesFromCache: w.Loaded(), Compile: w.CompileTime, Forward: w.ExecTime + w.Gen.PrefillTime + w.Gen.DecodeTime,
		Backoffs: w.Backoffs}
	if w.TokensRequested > 0 {
		t.ScoringBatch = w.Batch
	}
	if w.Gen.PromptTokens > 0 {
		t.GenerationBatch = w.Gen.Rows
	}
	return t
}
