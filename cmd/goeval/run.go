package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"strings"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmcache"
	"github.com/goeval/goeval/lm/lmtest"
	modelspkg "github.com/goeval/goeval/models"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/tasks"
)

func init() {
	register("run", "evaluate a model on tasks and write lm-eval results/samples files", runRun)
}

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
	seeds, err := f.seeds()
	if err != nil {
		return err
	}
	if f.progressEvery, err = progressInterval(); err != nil {
		return err
	}
	gk, err := tasks.ParseGenKwargs(f.genKwargs)
	if err != nil {
		return err
	}
	for _, w := range tasks.GenKwargsWarnings(gk) {
		fmt.Fprintf(os.Stderr, "goeval run: warning: %s\n", w)
	}
	if f.index, err = taskIndex(f.includePath); err != nil {
		return err
	}
	opts := goevalpkg.Options{Tasks: strings.Split(f.tasks, ","), Index: f.index, Task: tasks.DefaultOptions(),
		BootstrapIters: f.bootstrap, LogSamples: f.logSamples}
	if f.bootstrap <= 0 {
		opts.BootstrapIters = -1
	}
	opts.Task.DataDir, opts.Task.NumFewshot, opts.Task.Limit = f.dataDir, f.fewshot, f.limit
	opts.Task.ApplyChatTemplate, opts.Task.FewshotAsMultiturn = f.chat, f.multiturn.or(f.chat)
	opts.Task.SystemInstruction, opts.Task.GenKwargs, opts.Task.Samples = f.sysInstr, gk, f.lmeval.sampleIDs
	opts.LogSamples = opts.LogSamples || f.lmeval.writeOut
	if s, ok := seeds[3].(int64); ok {
		opts.Task.Seed = s
	}
	models, err := f.runModels(opts.Tasks)
	if err != nil {
		return err
	}
	if err := checkBeforeWork(f, models); err != nil {
		return err
	}
	if err := f.resolveAutoDType(models[0]); err != nil {
		return err
	}
	if len(f.adapters) > 0 && len(models) > 1 {
		return errs.BadInputf("--adapter applies to one base model, but --model names %d (%s); run each base on its own", len(models), strings.Join(models, ", "))
	}
	if err := f.fetchDatasets(context.Background(), opts.Tasks); err != nil {
		return err
	}
	opts.Task.HubCache = f.hub.datasetCache
	if err := f.resolveRunDevice(models); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if len(f.adapters) > 0 {
		return f.nonFinite.exit(runAdapters(ctx, f, models[0], opts, seeds, gk))
	}
	for i, model := range models {
		if len(models) > 1 {
			fmt.Fprintf(os.Stderr, "== model %d/%d: %s\n", i+1, len(models), model)
		}
		if skip, err := f.skipExisting(goevalpkg.Target{Name: model, Base: model, Index: -1}, len(models), opts, seeds, gk); err != nil || skip {
			if err != nil {
				return fmt.Errorf("model %s: %w", model, err)
			}
			continue
		}
		if err := runModel(ctx, f, model, opts, seeds, gk); err != nil {
			if len(models) > 1 {
				return fmt.Errorf("model %s: %w", model, err)
			}
			return err
		}
	}
	return f.nonFinite.exit(nil)
}

// checkBeforeWork checks what can be checked before the first forward:
// the output folder is created and writable, and every model of a sweep
// has a valid config.json (a typo in the last checkpoint of a sweep fails
// now, not after the others were evaluated).
func checkBeforeWork(f *runFlags, models []string) error {
	if f.out != "" {
		if err := report.PrepareOutput(f.out); err != nil {
			return err
		}
	}
	if f.useCache != "" {
		if err := lmcache.Check(f.useCache); err != nil {
			return err
		}
	}
	for _, m := range models {
		if m == "fake" || f.api.on() {
			continue
		}
		if err := checkModelDir(f.hub.localDir(m)); err != nil {
			return err
		}
		if _, err := modelspkg.LoadConfig(f.hub.localDir(m)); err != nil {
			return fmt.Errorf("model %s: %w", m, err)
		}
	}
	return nil
}

// resolveRunDevice resolves --device for the models of the run, the last
// step before work (it may install the XLA CPU plugin, with a progress
// bar). The "device:" line follows when the first model's requests start
// (showDevice), so a checkpoint or dataset that fails to load gets one
// error line.
func (f *runFlags) resolveRunDevice(models []string) error {
	if len(models) == 1 && models[0] == "fake" {
		f.choice = engine.DeviceChoice{Device: f.device}
		return nil
	}
	if f.api.on() {
		f.choice = apiDevice
		return nil
	}
	var err error
	f.choice, err = engine.ResolveDevice(context.Background(), f.device, engine.ResolveOptions{Progress: os.Stderr})
	return err
}

// showDevice prints the "device:" line (and auto's notice) once per run.
func (f *runFlags) showDevice() {
	if !f.deviceShown {
		f.deviceShown = true
		printDevice(f.choice)
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

// runModel evaluates one model and writes its results folder
// (--output-path/<model name sanitized>/).
func runModel(ctx context.Context, f *runFlags, model string, opts goevalpkg.Options, seeds []any, gk map[string]any) error {
	m, closeLM, err := openLM(f, model, &opts)
	if err != nil {
		return err
	}
	defer closeLM()
	return evaluateLM(ctx, f, goevalpkg.Target{Name: model, Base: model, Index: -1}, m, opts, seeds, gk)
}

// evaluateLM evaluates m as target t (through --use-cache's store when
// set), prints the summary table, the cache and engine lines and, with
// --output-path, writes the results (and samples) files.
func evaluateLM(ctx context.Context, f *runFlags, t goevalpkg.Target, m openedModel, opts goevalpkg.Options, seeds []any, gk map[string]any) error {
	pp := newProgressPrinter(os.Stderr, f.progressEvery)
	if !testProgress(&opts) {
		opts.Progress = pp.report
	}
	if m.eng != nil {
		inner := opts.Progress
		opts.Progress = func(p goevalpkg.Progress) {
			f.showDevice()
			if inner != nil {
				inner(p)
			}
		}
	}
	model, closeCache, err := f.withCache(m)
	if err != nil {
		return err
	}
	var before engine.Work
	if m.eng != nil {
		before = m.eng.Work()
	}
	res, err := goevalpkg.Evaluate(ctx, model, opts)
	pp.finish()
	closeCache(err == nil)
	var work engine.Work
	if m.eng != nil {
		work = m.eng.Work().Since(before)
		printEngineStats(work, err == nil)
	}
	if err != nil {
		return err
	}
	extra := f.promptExtra(m.chatTemplate())
	for k, v := range m.extra {
		extra[k] = v
	}
	if m.eng != nil {
		extra[report.TimingKey] = work.Fields()
	}
	extra = f.hub.hubExtra(extra)
	settings := f.settings(t, seeds, gk)
	if m.eng != nil {
		settings.NumParameters = int64(m.eng.NumParameters())
	}
	rep, samples, err := report.FromResults(res, report.RunInfo{ModelName: t.Name, Config: report.RunConfig(settings),
		Extra: extra, Metadata: f.lmeval.metadataMap()})
	if err != nil {
		return err
	}
	f.lmeval.printWriteOut(os.Stderr, samples)
	fmt.Print(report.SummaryTable(res))
	if err := f.lmeval.printConfigs(os.Stdout, rep); err != nil {
		return err
	}
	if !f.logSamples {
		samples = nil // --write-out logged them for its printout only
	}
	defer f.nonFinite.note(t.Name, res)
	if f.out != "" {
		path, err := report.WriteRun(f.out, rep, samples, res.Start)
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "results written to", path)
		return f.removeOlder(t, path, opts, seeds, gk, m.chatTemplate())
	}
	return nil
}

// openLM opens the model (or the fake LM), sets the chat template and
// returns it with its results-file keys (tokenizer tokens, max_length).
func openLM(f *runFlags, model string, opts *goevalpkg.Options) (openedModel, func(), error) {
	if f.api.on() {
		m, err := openAPIModel(f, opts)
		return m, func() {}, err
	}
	if model == "fake" {
		return openedModel{lm: lmtest.New()}, func() {}, nil
	}
	m, err := engine.Open(f.hub.localDir(model), f.engineOptions())
	if err != nil {
		return openedModel{}, nil, err
	}
	return engineModel(m), func() { m.Close() }, nil
}

// engineModel is an opened engine as a target.
func engineModel(m *engine.Engine) openedModel {
	return openedModel{lm: m, eng: m, extra: report.ModelKeys(m.Info())}
}
