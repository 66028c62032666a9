package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmcache"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/metrics"
	modelspkg "github.com/goeval/goeval/models"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/tasks"
)

func init() {
	register("run", "evaluate a model on tasks and write lm-eval results/samples files", runRun)
}

// runFlags are goeval run's flags (DESIGN.md's fixed interface).
type runFlags struct {
	model, tasks, batch, device, out, genKwargs, dataDir, dtype, seed, sysInstr string
	choice                                                                      engine.DeviceChoice // --device resolved (resolveRunDevice)
	deviceShown                                                                 bool                // the "device:" line was printed
	adapters                                                                    stringList
	adapterMode                                                                 string
	limit                                                                       float64
	fewshot, bootstrap                                                          int
	logSamples, chat, skipBase                                                  bool
	multiturn                                                                   optBool
	useCache                                                                    string // --use-cache (run_cache.go)
	includePath                                                                 string
	overwrite                                                                   bool
	prefixCacheMB                                                               string         // --prefix-cache-mb
	given                                                                       []string       // the flags given on the command line
	hub                                                                         hubState       // Hub ids resolved to cache snapshots (hub.go)
	progressEvery                                                               time.Duration  // GOEVAL_PROGRESS_INTERVAL (run_output.go)
	nonFinite                                                                   nonFiniteState // --fail-on-nonfinite (run_nonfinite.go)
	lmeval                                                                      lmevalState    // lm-eval's options (run_lmeval*.go)
	api                                                                         apiState       // --model-type: a model behind an API (run_api.go)
}

func parseRunFlags(args []string) (*runFlags, error) {
	f := &runFlags{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&f.model, "model", "", "model directory (Hugging Face checkpoint: config.json, *.safetensors, tokenizer.json), a Hub repository ORG/NAME[@REVISION] (fetched into the Hugging Face cache; see 'goeval download --help'), or \"fake\" for the deterministic test LM (required unless --adapter names its base). A checkpoint sweep: comma-separated directories and/or globs (ckpts/step-*), evaluated one after another, each into its own folder under --output-path")
	fs.Var(&f.adapters, "adapter", "PEFT LoRA adapter directory (adapter_config.json + adapter_model.safetensors) or Hub repository ORG/NAME[@REVISION] for --model (without --model, the first adapter's base_model_name_or_path is the base); repeatable. The run evaluates the base model and then each adapter, each into its own results folder (see above)")
	fs.StringVar(&f.adapterMode, "adapter-mode", "auto", "how --adapter is applied: separate (base weights loaded once, each adapter computed as x·Aᵀ·Bᵀ·scale in the graph), merged (scale·B·A added into the weights: one load per evaluated model, one after another), or auto: separate when the run evaluates more than one model, merged for one adapter with --skip-base")
	fs.BoolVar(&f.skipBase, "skip-base", false, "with --adapter: evaluate only the adapters, not the base model")
	fs.StringVar(&f.tasks, "tasks", "", "comma-separated task or group names, e.g. gsm8k,mmlu_stem ('goeval tasks' lists them; required), or paths of lm-eval task YAML files (path/to/task.yaml)")
	fs.StringVar(&f.includePath, "include-path", "", "folder(s) of lm-eval task YAML files (comma-separated), indexed before --tasks is resolved: their tasks, groups and tags can be named in --tasks (lm-eval's --include_path; README \"Custom tasks\")")
	fs.Float64Var(&f.limit, "limit", 0, "documents per task: < 1 is a fraction (ceil(N*limit)), >= 1 a count (int(limit)); 0 = all. The first documents are used, as in lm-eval")
	fs.IntVar(&f.fewshot, "num-fewshot", -1, "few-shot examples per prompt; -1 = each task's default (tasks fixed at 0 ignore it)")
	fs.StringVar(&f.batch, "batch-size", "auto", "rows per forward pass: a positive number, or \"auto\": scoring passes of up to 4096 packed tokens, and on XLA a generation batch measured once per run (8–64 rows)")
	fs.StringVar(&f.device, "device", engine.DefaultDevice(), deviceHelp)
	fs.StringVar(&f.dtype, "dtype", "float32", "compute dtype: float32 or bfloat16")
	fs.StringVar(&f.prefixCacheMB, "prefix-cache-mb", "auto", prefixCacheHelp)
	fs.StringVar(&f.out, "output-path", "", "folder for results_<date>.json (and samples_<task>_<date>.jsonl with --log-samples), under a subfolder named after the model")
	fs.BoolVar(&f.logSamples, "log-samples", false, "also write per-document samples files (needs --output-path)")
	fs.StringVar(&f.seed, "seed", "0,1234,1234,1234", "lm-eval seeds random,numpy,torch,fewshot; one number sets all four. Only the few-shot seed changes goeval's prompts")
	fs.BoolVar(&f.chat, "apply-chat-template", false, "render prompts with the model's chat template (turns on --fewshot-as-multiturn unless it is given as false, as lm-eval >= 0.4.10)")
	fs.Var(&f.multiturn, "fewshot-as-multiturn", "few-shot examples as separate chat turns; default true with --apply-chat-template, =false puts them inline in one user turn (true needs --apply-chat-template)")
	fs.StringVar(&f.sysInstr, "system-instruction", "", "system prompt prepended to every context")
	fs.StringVar(&f.genKwargs, "gen-kwargs", "", "generation overrides for generate_until tasks: k=v,k2=v2 or a JSON object (e.g. temperature=0.7,do_sample=true,max_gen_toks=128); keys: until, max_gen_toks, do_sample, temperature, top_p, top_k (sampling needs do_sample=true and temperature > 0)")
	fs.StringVar(&f.dataDir, "data-dir", "", "dataset root: Hugging Face dataset snapshots, 'goeval synth data' output, or a HF cache (default $HF_HOME or ~/.cache/huggingface)")
	fs.StringVar(&f.useCache, "use-cache", "", "request cache folder (lm-eval's --use_cache): every answered request is committed there, one file per model identity, so an interrupted run resumes without recomputing; see README \"Interrupted runs and caching\"")
	fs.BoolVar(&f.overwrite, "overwrite", false, "evaluate every model even when --output-path holds its results of the same tasks and settings (a sweep or multi-adapter run skips it otherwise), then remove those older results and samples files")
	fs.BoolVar(&f.nonFinite.fail, "fail-on-nonfinite", false, failOnNonFiniteHelp)
	fs.IntVar(&f.bootstrap, "bootstrap-iters", metrics.DefaultBootstrapIters, "bootstrap resamples for non-mean stderrs (lm-eval default 100000); <= 0 writes N/A")
	defineLMEvalFlags(fs, f)
	defineAPIFlags(fs, &f.api)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), runUsage)
		fs.PrintDefaults()
	}
	args, err := lmevalCommandLine(args, fs)
	if err != nil {
		return nil, err
	}
	if help, err := parseNoArgs(fs, args); help || err != nil {
		if help {
			return nil, flag.ErrHelp
		}
		return nil, err
	}
	fs.Visit(func(fl *flag.Flag) { f.given = append(f.given, fl.Name) })
	if err := f.applyLMEval(); err != nil {
		return nil, err
	}
	return f, f.validate()
}

func (f *runFlags) validate() error {
	switch {
	case f.model == "" && len(f.adapters) == 0:
		return errs.BadInputf("--model is required (a checkpoint directory, or \"fake\")")
	case strings.TrimSpace(f.tasks) == "":
		return errs.BadInputf("--tasks is required, e.g. --tasks hellaswag,arc_easy")
	case math.IsNaN(f.limit) || math.IsInf(f.limit, 0) || f.limit < 0:
		return errs.BadInputf("--limit %v out of range: use 0 (all), a fraction in (0,1) or a count >= 1", f.limit)
	case f.fewshot < -1:
		return errs.BadInputf("--num-fewshot %d out of range: use -1 (task default) or >= 0", f.fewshot)
	case f.logSamples && f.out == "":
		return errs.BadInputf("--log-samples needs --output-path")
	case f.multiturn.or(false) && !f.chat:
		return errs.BadInputf("--fewshot-as-multiturn needs --apply-chat-template")
	case f.overwrite && f.out == "":
		return errs.BadInputf("--overwrite needs --output-path (it replaces results there)")
	}
	if _, err := prefixCacheOption(f.prefixCacheMB); err != nil {
		return err
	}
	if err := f.validateAdapters(); err != nil {
		return err
	}
	if !strings.HasPrefix(f.batch, "auto") {
		if n, err := strconv.Atoi(f.batch); err != nil || n < 1 {
			return errs.BadInputf("--batch-size %q: use a positive number, \"auto\" or \"auto:N\"", f.batch)
		}
	}
	if err := checkDevice(f.device); err != nil {
		return err
	}
	if f.dtype == "auto" { // --model_args dtype=auto: config.json's, resolved per model
		return nil
	}
	return engine.Options{DType: f.dtype}.Validate()
}

// fewshotSeed parses --seed as lm-eval: one value for all four, or a list
// whose 4th entry is the few-shot seed (default 1234).
func (f *runFlags) seeds() ([]any, error) {
	parts := strings.Split(f.seed, ",")
	if len(parts) == 1 {
		parts = []string{parts[0], parts[0], parts[0], parts[0]}
	}
	if len(parts) == 3 {
		parts = append(parts, "1234")
	}
	if len(parts) != 4 {
		return nil, errs.BadInputf("--seed %q: give one number or four comma-separated ones", f.seed)
	}
	out := make([]any, 4)
	for i, p := range parts {
		if p = strings.TrimSpace(p); p == "None" {
			continue
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, errs.BadInputf("--seed %q: %q is not an integer", f.seed, p)
		}
		out[i] = n
	}
	return out, nil
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
	if err := loadIncludePaths(f.includePath); err != nil {
		return err
	}
	opts := goevalpkg.Options{Tasks: strings.Split(f.tasks, ","), Task: tasks.DefaultOptions(),
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
	extra := f.promptExtra(m.chatTemplate)
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
		return f.removeOlder(t, path, opts, seeds, gk, m.chatTemplate)
	}
	return nil
}

// engineOptions are the engine settings of --device, --dtype, --batch-size,
// --prefix-cache-mb.
func (f *runFlags) engineOptions() engine.Options {
	eo := engine.Options{Device: f.choice.Device, Backend: f.choice.Spec, DType: f.dtype, MaxLength: f.lmeval.maxLength,
		AddBOSToken: f.lmeval.addBOS, PrefixToken: f.lmeval.prefixToken, PrefixCacheMB: mustPrefixCache(f.prefixCacheMB)}
	eo.BatchSize, _ = strconv.Atoi(f.batch) // 0 for auto: the engine's default
	if eo.BatchSize == 0 && f.lmeval.maxBatch > 0 {
		eo.BatchSize = min(f.lmeval.maxBatch, engine.DefaultBatchSize)
	}
	return eo
}

// openLM opens the model (or the fake LM), sets the chat template and
// returns it with its results-file keys (tokenizer tokens, max_length).
func openLM(f *runFlags, model string, opts *goevalpkg.Options) (openedModel, func(), error) {
	if f.api.on() {
		m, err := openAPIModel(f, opts)
		return m, func() {}, err
	}
	if model == "fake" {
		if f.chat {
			opts.Task.ChatTemplate = func(msgs []tasks.ChatMessage, gen bool) (string, error) {
				var b strings.Builder
				for i, m := range msgs {
					fmt.Fprintf(&b, "<%s>%s", m.Role, m.Content)
					if gen || i < len(msgs)-1 { // without a generation prompt the final message is continued
						fmt.Fprintf(&b, "</%s>", m.Role)
					}
				}
				return b.String(), nil
			}
		}
		return openedModel{lm: lmtest.New(), chatTemplate: fakeChatTemplate}, func() {}, nil
	}
	m, err := engine.Open(f.hub.localDir(model), f.engineOptions())
	if err != nil {
		return openedModel{}, nil, err
	}
	return engineModel(f, m, opts), func() { m.Close() }, nil
}

// engineModel is an opened engine as a target: with
// --apply-chat-template it sets opts' chat template to the model's.
func engineModel(f *runFlags, m *engine.Engine, opts *goevalpkg.Options) openedModel {
	om := openedModel{lm: m, eng: m, extra: report.ModelKeys(m.Info())}
	if f.chat {
		opts.Task.ChatTemplate = m.ApplyChatTemplate
		if tok := m.Tokenizer(); tok != nil {
			om.chatTemplate = tok.ChatTemplate()
		}
	}
	return om
}
