package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmcache"
	"github.com/goeval/goeval/lm/lmtest"
	modelspkg "github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/tasks"
)

// runPlan is one goeval run, settled before any model is opened: the flags
// parsed, lm-eval's spellings applied, the tasks, models and Hub ids
// resolved, the device chosen and everything checkable checked. planRun
// builds it once and nothing changes it afterwards. Its parts are the
// library's own values — goeval.Options for the evaluation, engine.Options
// (or an API model's options) for the model, report.RunInfo for the
// results files — so a Go program that builds the same values evaluates
// the same way and writes the same files.
type runPlan struct {
	eval    goevalpkg.Options  // tasks and their Index, task options, bootstrap, samples
	targets []goevalpkg.Target // the models to evaluate, in order
	// adapters, when set, evaluates targets as one family: a base and its
	// PEFT adapters (engine.OpenFamily), in adapterMode.
	adapters    []string
	adapterMode string
	engine      engine.Options      // the device resolved, dtype, batching, lm-eval's model arguments
	device      engine.DeviceChoice // what --device resolved to
	dtypes      map[string]string   // each model's dtype as its results record it (modelDTypes)
	api         *apiPlan            // a model behind an API (nil: checkpoints or the fake LM)
	// info is what every target's results file shares; infoFor adds the
	// target's own keys.
	info   report.RunInfo
	nshot  map[string]int // each task's effective num_fewshot (skipping finished targets)
	groups []string       // the groups the run reports
	hub    hubState       // Hub ids → cache snapshots
	out    outputPlan
	// shardRun, with --shard (eval.Shard), is what the shard's manifest
	// records of the evaluation's settings (run_shard.go).
	shardRun report.EvalSettings
	devices  []int      // --devices: the device numbers; nil: all (run_devices.go)
	think    thinkState // think_end_token and enable_thinking (run_think.go)
}

// outputPlan is what a run prints and writes, and how it ends.
type outputPlan struct {
	dir                  string        // --output-path; "" writes no files
	logSamples           bool          // samples files too
	overwrite            bool          // evaluate finished targets again, then remove their older files
	cache                string        // --use-cache folder ("": none)
	writeOut, showConfig bool          // lm-eval's --write_out and --show_config printouts
	progressEvery        time.Duration // progress lines when stderr is not a terminal
	failNonFinite        bool          // exit 1 on NaN/Inf log-probs
}

// planRun resolves f into the run's plan; every error is one line, before
// any model is opened (Hub models and datasets are fetched, and an XLA
// plugin installed, here).
func planRun(ctx context.Context, f *runFlags) (_ *runPlan, err error) {
	p := &runPlan{think: f.think}
	defer func() {
		if err != nil && p.eval.Index != nil {
			p.eval.Index.Close() // its Python worker, if a task started one
		}
	}()
	seeds, err := f.seeds()
	if err != nil {
		return nil, err
	}
	if p.eval, err = evalOptions(f, seeds); err != nil {
		return nil, err
	}
	p.eval.Index.ConfirmRunUnsafeCode(f.confirmUnsafeCode) // before any task is built: an unconfirmed code task starts no Python
	if p.out, err = outputOf(f); err != nil {
		return nil, err
	}
	models, err := p.resolveModels(ctx, f)
	if err != nil {
		return nil, err
	}
	p.setRunMetadata(f, models) // custom_dataset's keyword arguments
	if err := p.planCode(f); err != nil {
		return nil, err
	}
	if err := checkBeforeWork(f, p.hub, models); err != nil {
		return nil, err
	}
	if err := p.planTargets(f, models); err != nil {
		return nil, err
	}
	if f.dataDir == "" {
		if p.hub.datasets, p.eval.Task.HubCache, err = fetchDatasets(ctx, p.eval.Index, p.eval.Tasks); err != nil {
			return nil, err
		}
	}
	if p.device, err = resolveRunDevice(f, models); err != nil {
		return nil, err
	}
	if p.dtypes, err = modelDTypes(f, p.hub, models, p.device.Device); err != nil {
		return nil, err
	}
	p.engine = f.engineOptions(p.device)
	if f.api.on() {
		if p.api, err = planAPI(f); err != nil {
			return nil, err
		}
	}
	p.info = runInfo(f, p, seeds)
	if err := p.planScale(f); err != nil {
		return nil, err
	}
	return p, p.planShots()
}

// evalOptions are the evaluation's options: the task Index (built-ins and
// --include-path), the task options and the output's.
func evalOptions(f *runFlags, seeds report.Seeds) (goevalpkg.Options, error) {
	gk, err := tasks.ParseGenKwargs(f.genKwargs)
	if err != nil {
		return goevalpkg.Options{}, err
	}
	for _, w := range tasks.GenKwargsWarnings(gk) {
		fmt.Fprintf(os.Stderr, "goeval run: warning: %s\n", w)
	}
	ix, err := taskIndex(f.includePath, f.python)
	if err != nil {
		return goevalpkg.Options{}, err
	}
	o := goevalpkg.Options{Tasks: strings.Split(f.tasks, ","), Index: ix, Task: tasks.DefaultOptions(),
		BootstrapIters: f.bootstrap, LogSamples: f.logSamples || f.lmeval.writeOut}
	if f.bootstrap <= 0 {
		o.BootstrapIters = -1
	}
	t := &o.Task
	t.DataDir, t.NumFewshot, t.Limit = f.dataDir, f.fewshot, f.limit
	t.ApplyChatTemplate, t.FewshotAsMultiturn = f.chat, f.multiturn.or(f.chat)
	t.SystemInstruction, t.GenKwargs, t.Samples = f.sysInstr, gk, f.lmeval.sampleIDs
	if seeds.Fewshot != nil {
		t.Seed = *seeds.Fewshot
	}
	o.SamplingSeed = seeds.Torch
	return o, nil
}

// outputOf is the run's output plan.
func outputOf(f *runFlags) (outputPlan, error) {
	every, err := progressInterval()
	return outputPlan{dir: f.out, logSamples: f.logSamples, overwrite: f.overwrite, cache: f.useCache,
		writeOut: f.lmeval.writeOut, showConfig: f.lmeval.showConfig, progressEvery: every,
		failNonFinite: f.failNonFinite}, err
}

// resolveModels are --model's models (a sweep's checkpoints; an API
// model's name; with only --adapter, the first adapter's base), Hub ids
// fetched into the cache. The task names are checked first.
func (p *runPlan) resolveModels(ctx context.Context, f *runFlags) ([]string, error) {
	if _, _, err := p.eval.Index.Expand(p.eval.Tasks); err != nil {
		return nil, err
	}
	if f.api.on() {
		return []string{f.model}, nil
	}
	model, hs, err := resolveHubModels(ctx, f.model, f.adapters)
	if err != nil {
		return nil, err
	}
	p.hub = hs
	models, err := goevalpkg.ExpandModels(model)
	if err != nil {
		return nil, errs.BadInputf("--model %w", err)
	}
	if len(f.adapters) > 0 && len(models) > 1 {
		return nil, errs.BadInputf("--adapter applies to one base model, but --model names %d (%s); run each base on its own", len(models), strings.Join(models, ", "))
	}
	return models, nil
}

// planTargets are the run's targets: each model of a sweep, or a base and
// its adapters.
func (p *runPlan) planTargets(f *runFlags, models []string) error {
	if len(f.adapters) == 0 {
		for _, m := range models {
			p.targets = append(p.targets, goevalpkg.Target{Name: m, Base: m, Index: -1})
		}
		return nil
	}
	p.adapters = f.adapters
	p.targets = goevalpkg.AdapterTargets(models[0], f.adapters, f.skipBase)
	p.adapterMode = engine.ResolveAdapterMode(f.adapterMode, len(p.targets))
	return nil
}

// planShots records each task's effective num_fewshot and the groups the
// run reports (what an existing results file of the run must hold).
func (p *runPlan) planShots() error {
	ts, groups, err := p.eval.Index.Expand(p.eval.Tasks)
	if err != nil {
		return err
	}
	p.nshot = map[string]int{}
	for _, t := range ts {
		p.nshot[t.Name()] = t.NumFewshot(p.eval.Task)
	}
	for _, g := range groups {
		p.groups = append(p.groups, g.Name)
	}
	return nil
}

// checkBeforeWork checks what can be checked before the first forward:
// the output folder is created and writable, the cache folder usable, and
// every model of a sweep has a valid config.json (a typo in the last
// checkpoint of a sweep fails now, not after the others were evaluated)
// and, with --apply-chat-template, a chat template.
func checkBeforeWork(f *runFlags, hs hubState, models []string) error {
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
		dir := hs.localDir(m)
		if err := checkModelDir(dir); err != nil {
			return err
		}
		if _, err := modelspkg.LoadConfig(dir); err != nil {
			return fmt.Errorf("model %s: %w", m, err)
		}
		if f.chat {
			if tmpl, err := chatTemplateOf(dir); err != nil || tmpl == "" {
				return errs.BadInputf("--apply-chat-template: model %s has no chat template (tokenizer_config.json chat_template)%s", m, errSuffix(err))
			}
		}
	}
	return nil
}

// errSuffix is ": err" for a non-nil err.
func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// modelDTypes is the dtype each model of the run records (model_args
// dtype, and model_dtype in torch's spelling): --dtype as given, or for
// auto (the default, or --model_args dtype=auto) what it resolves to for
// that model on device (engine.ResolveDType: config.json's torch_dtype on
// cuda, float32 on a CPU), so each checkpoint of a sweep gets its own.
// The engine resolves Options.DType the same way when it opens the model;
// the fake and API models compute nothing here (auto: float32).
func modelDTypes(f *runFlags, hs hubState, models []string, device string) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range models {
		if d, err := engine.ParseDType(f.dtype); err != nil || d != engine.DTypeAuto {
			out[m] = f.dtype
			continue
		}
		if m == "fake" || f.api.on() {
			out[m] = engine.DTypeFloat32
			continue
		}
		cfg, err := modelspkg.LoadConfig(hs.localDir(m))
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m, err)
		}
		if out[m], err = engine.ResolveDType(f.dtype, device, cfg.TorchDType); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// resolveRunDevice resolves --device for the models of the run, the last
// step before work (it may install the XLA CPU plugin, with a progress
// bar). The "device:" line follows when the first model's requests start,
// so a checkpoint or dataset that fails to load gets one error line.
func resolveRunDevice(f *runFlags, models []string) (engine.DeviceChoice, error) {
	switch {
	case len(models) == 1 && models[0] == "fake":
		return engine.DeviceChoice{Device: f.device}, nil
	case f.api.on():
		return apiDevice, nil
	}
	return engine.ResolveDevice(context.Background(), f.device, engine.ResolveOptions{Progress: os.Stderr})
}

// runInfo is the results-file header every target of the run shares.
func runInfo(f *runFlags, p *runPlan, seeds report.Seeds) report.RunInfo {
	var batch any = f.batch // as given, as lm-eval records it; goeval's default as a number
	if n, err := strconv.Atoi(f.batch); err == nil && !slices.Contains(f.given, "batch-size") {
		batch = n
	}
	device := p.device.Device
	if f.lmeval.deviceGiven != "" {
		device = f.lmeval.deviceGiven // lm-eval's spelling (cuda:0) as given
	}
	info := report.RunInfo{Metadata: f.lmeval.meta,
		Settings: report.RunSettings{BatchSize: batch, Device: device, Limit: f.limit,
			BootstrapIters: f.bootstrap, GenKwargs: p.eval.Task.GenKwargs, Seeds: seeds, ModelArgs: f.apiModelArgs()},
		Prompt: report.PromptSettings{SystemInstruction: f.sysInstr, ApplyChatTemplate: f.chat}}
	if p.device.CustomCPU() {
		info.Backend = p.device.Spec
	}
	info.Settings.ThinkEndToken = f.think.endToken
	if f.lmeval.args == nil {
		info.Settings.LoadIn4Bit = f.load4.runArgs(f.load4q)
		info.Settings.LoadIn8Bit = f.load8.runArgs(f.load8q)
	}
	if f.think.enable.set {
		v := f.think.enable.val
		info.Settings.EnableThinking = &v
	}
	if f.chat || f.multiturn.set {
		v := f.multiturn.or(f.chat)
		info.Prompt.FewshotAsMultiturn = &v
	}
	if len(p.hub.datasets) > 0 {
		info.DatasetSHA = map[string]string{}
		for path, s := range p.hub.datasets {
			info.DatasetSHA[path] = s.Commit
		}
	}
	return info
}

// infoFor is target t's results-file header, for a model with chat
// template tmpl (recorded with --apply-chat-template), before its model
// facts and work are known (evaluateTarget adds them).
func (p *runPlan) infoFor(t goevalpkg.Target, tmpl string) report.RunInfo {
	info := p.info
	info.ModelName = t.Name
	info.Prompt.ChatTemplate = tmpl
	s := &info.Settings
	s.Model, s.Peft, s.DType = t.Base, t.Adapter, p.dtypes[t.Base]
	s.ModelRevision, s.ModelSHA, s.PeftSHA = p.hub.modelInfo(t.Base, t.Adapter)
	s.Checkpoint = t.Base != "fake" && p.api == nil
	return info
}

// templateOf is the chat template target t's results file records: with
// --apply-chat-template the model's, read without loading its weights.
func (p *runPlan) templateOf(t goevalpkg.Target) (string, error) {
	switch {
	case !p.eval.Task.ApplyChatTemplate:
		return "", nil
	case p.api != nil:
		return p.api.template(), nil
	case t.Base == "fake":
		return lmtest.Template, nil
	}
	return chatTemplateOf(p.hub.localDir(t.Base))
}

// chatTemplateOf reads the chat template of the checkpoint in dir.
func chatTemplateOf(dir string) (string, error) {
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return "", err
	}
	return tok.ChatTemplate(), nil
}
