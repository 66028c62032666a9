package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/report"
)

// runFlags are goeval run's flags as parsed, with lm-eval's spellings,
// --model_args and --config applied (run_lmeval*.go) and an API model's
// flags (run_api.go). They hold what the user said and nothing resolved:
// planRun turns them into the run's plan.
type runFlags struct {
	model, tasks, batch, device, out, genKwargs, dataDir, dtype, seed, sysInstr string
	adapters                                                                    stringList
	adapterMode                                                                 string
	limit                                                                       float64
	fewshot, bootstrap                                                          int
	logSamples, chat, skipBase, overwrite, failNonFinite                        bool
	confirmUnsafeCode                                                           bool
	multiturn                                                                   optBool
	useCache                                                                    string // --use-cache (run_cache.go)
	includePath                                                                 string
	python                                                                      pythonFlags // --python, --python-timeout
	prefixCacheMB                                                               string      // --prefix-cache-mb
	compileCache                                                                string      // --compile-cache
	given                                                                       []string    // the flags given on the command line
	lmeval                                                                      lmevalState // lm-eval's options (run_lmeval*.go)
	api                                                                         apiState    // --model-type: a model behind an API (run_api.go)
	scale                                                                       scaleFlags  // --shard, --devices (run_shard.go, run_devices.go)
	think                                                                       thinkState  // think_end_token, enable_thinking (run_think.go)
	load4                                                                       load4Flag   // --load-in-4bit, load_in_4bit=True (load4bit.go)
	load4q                                                                      *models.Quantization
	load8                                                                       load8Flag // --load-in-8bit, load_in_8bit=True (load8bit.go)
	load8q                                                                      *models.Quantization
	dequant4                                                                    optBool // --dequantize-4bit: given true or false, or left to the device
}

// runUsage heads goeval run --help.
const runUsage = `Usage: goeval run --model DIR|fake --tasks a,b [flags]
Evaluates the model and prints lm-eval's summary table; with --output-path writes lm-eval-compatible
files under --output-path/<model name, sanitized>/ (e.g. /m/qwen -> __m__qwen).

Checkpoint sweep: --model a,b,ckpts/step-* evaluates each directory in turn, one results folder each.

LoRA adapters: --model BASE --adapter A [--adapter B …] evaluates BASE, then BASE with A, then BASE
with B (--skip-base: the adapters only). When more than one model is evaluated, the default adapter
mode is separate: BASE's weights are loaded once and shared by every model. Each model gets its own
results (and samples) folder, named as lm-eval names a peft run: BASE's under <BASE sanitized>/, an
adapter's under <adapter dir sanitized>/, whose results record model_name = the adapter directory and
config.model_args = {pretrained: BASE, peft: A, dtype}. Example:
  goeval run --model qwen --adapter ft/a --adapter ft/b --tasks arc_easy --output-path res
writes res/qwen/, res/ft__a/ and res/ft__b/; then: goeval compare res/qwen res/ft__a res/ft__b

Interrupted runs: with --use-cache DIR every answered request is committed to DIR (one file per model
identity: checkpoint files, adapters, dtype, device), so running the same command again after a crash
or Ctrl-C recomputes only what was lost. A sweep or multi-adapter run with --output-path skips each
model whose results of the same tasks and settings are already there; --overwrite evaluates them again
and then removes the older files.

Progress goes to stderr: a bar on a terminal; elsewhere (CI, nohup, Slurm logs) a "progress:" line
when the requests start, at most one every 30 s (GOEVAL_PROGRESS_INTERVAL=10s changes it) and one
when they are done.

Flags:
`

func parseRunFlags(args []string) (*runFlags, error) {
	f := &runFlags{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&f.model, "model", "", "model directory (Hugging Face checkpoint: config.json, *.safetensors, tokenizer.json), a Hub repository ORG/NAME[@REVISION] (fetched into the Hugging Face cache; see 'goeval download --help'), or \"fake\" for the deterministic test LM (required unless --adapter names its base). A checkpoint sweep: comma-separated directories and/or globs (ckpts/step-*), evaluated one after another, each into its own folder under --output-path")
	fs.Var(&f.adapters, "adapter", "PEFT LoRA adapter directory (adapter_config.json + adapter_model.safetensors) or Hub repository ORG/NAME[@REVISION] for --model (without --model, the first adapter's base_model_name_or_path is the base); repeatable. The run evaluates the base model and then each adapter, each into its own results folder (see above)")
	fs.StringVar(&f.adapterMode, "adapter-mode", engine.AdapterAuto, "how --adapter is applied: separate (base weights loaded once, each adapter computed as x·Aᵀ·Bᵀ·scale in the graph), merged (scale·B·A added into the weights: one load per evaluated model, one after another), or auto: separate when the run evaluates more than one model, merged for one adapter with --skip-base")
	fs.BoolVar(&f.skipBase, "skip-base", false, "with --adapter: evaluate only the adapters, not the base model")
	fs.StringVar(&f.tasks, "tasks", "", "comma-separated task or group names, e.g. gsm8k,mmlu_stem ('goeval tasks' lists them; required), or paths of lm-eval task YAML files (path/to/task.yaml)")
	fs.StringVar(&f.includePath, "include-path", "", "folder(s) of lm-eval task YAML files (comma-separated), indexed before --tasks is resolved: their tasks, groups and tags can be named in --tasks (lm-eval's --include_path; README \"Custom tasks\")")
	f.python.define(fs)
	fs.Float64Var(&f.limit, "limit", 0, "documents per task: < 1 is a fraction (ceil(N*limit)), >= 1 a count (int(limit)); 0 = all. The first documents are used, as in lm-eval")
	fs.IntVar(&f.fewshot, "num-fewshot", -1, "few-shot examples per prompt; -1 = each task's default (tasks fixed at 0 ignore it)")
	fs.StringVar(&f.batch, "batch-size", "auto", "rows per forward pass: a positive number, or \"auto\": scoring passes of up to 4096 packed tokens, and on XLA a generation batch measured once per run (8–64 rows)")
	fs.StringVar(&f.device, "device", engine.DefaultDevice(), deviceHelp)
	fs.StringVar(&f.dtype, "dtype", engine.DTypeAuto, dtypeHelp)
	fs.Var(&f.load4, "load-in-4bit", load4Help)
	fs.Var(&f.load8, "load-in-8bit", load8Help)
	fs.Var(&f.dequant4, "dequantize-4bit", dequant4Help)
	fs.StringVar(&f.prefixCacheMB, "prefix-cache-mb", "auto", prefixCacheHelp)
	fs.StringVar(&f.compileCache, "compile-cache", "", compileCacheHelp)
	fs.StringVar(&f.lmeval.softmax, "softmax-dtype", "auto", softmaxHelp+" (also --model_args softmax_dtype=)")
	fs.StringVar(&f.out, "output-path", "", "folder for results_<date>.json (and samples_<task>_<date>.jsonl with --log-samples), under a subfolder named after the model")
	fs.BoolVar(&f.logSamples, "log-samples", false, "also write per-document samples files (needs --output-path)")
	fs.StringVar(&f.seed, "seed", "0,1234,1234,1234", "lm-eval seeds random,numpy,torch,fewshot; one number sets all four. The few-shot seed picks the prompts' shots; the torch seed, each sampled answer's seed (with the task, document and repeat)")
	fs.BoolVar(&f.chat, "apply-chat-template", false, "render prompts with the model's chat template (turns on --fewshot-as-multiturn unless it is given as false, as lm-eval >= 0.4.10)")
	fs.Var(&f.multiturn, "fewshot-as-multiturn", "few-shot examples as separate chat turns; default true with --apply-chat-template, =false puts them inline in one user turn (true needs --apply-chat-template)")
	fs.StringVar(&f.sysInstr, "system-instruction", "", "system prompt prepended to every context")
	fs.StringVar(&f.genKwargs, "gen-kwargs", "", "generation overrides for generate_until tasks: k=v,k2=v2 or a JSON object (e.g. temperature=0.7,do_sample=true,max_gen_toks=128); keys: until, max_gen_toks, do_sample, temperature, top_p, top_k (sampling needs do_sample=true and temperature > 0)")
	fs.StringVar(&f.dataDir, "data-dir", "", "dataset root: Hugging Face dataset snapshots, 'goeval synth data' output, or a HF cache (default $HF_HOME or ~/.cache/huggingface)")
	fs.StringVar(&f.useCache, "use-cache", "", "request cache folder (lm-eval's --use_cache): every answered request is committed there, one file per model identity, so an interrupted run resumes without recomputing; see README \"Interrupted runs and caching\"")
	fs.BoolVar(&f.overwrite, "overwrite", false, "evaluate every model even when --output-path holds its results of the same tasks and settings (a sweep or multi-adapter run skips it otherwise), then remove those older results and samples files")
	fs.BoolVar(&f.failNonFinite, "fail-on-nonfinite", false, failOnNonFiniteHelp)
	fs.BoolVar(&f.confirmUnsafeCode, "confirm-run-unsafe-code", false, "run tasks that execute the generated code (a task YAML's unsafe_code: true, e.g. lm-eval's humaneval, mbpp), each program in goeval's sandbox; they are refused without it (lm-eval's --confirm_run_unsafe_code)")
	fs.IntVar(&f.bootstrap, "bootstrap-iters", metrics.DefaultBootstrapIters, "bootstrap resamples for non-mean stderrs (lm-eval default 100000); <= 0 writes N/A")
	defineLMEvalFlags(fs, f)
	defineAPIFlags(fs, &f.api)
	defineScaleFlags(fs, &f.scale)
	defineThinkFlags(fs, &f.think)
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
	if err := checkCompileCache(f.compileCache); err != nil {
		return err
	}
	if err := checkSoftmax(f.lmeval.softmax); err != nil {
		return err
	}
	if err := f.validateLoad4(); err != nil {
		return err
	}
	if err := f.think.check(f.api.kind == "chat"); err != nil {
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
	_, err := engine.ParseDType(f.dtype) // auto is resolved per model (modelDTypes)
	return err
}

// seeds parses --seed as lm-eval: one value for all four, or a list
// whose 4th entry is the few-shot seed (default 1234); None is unseeded.
func (f *runFlags) seeds() (report.Seeds, error) {
	parts := strings.Split(f.seed, ",")
	if len(parts) == 1 {
		parts = []string{parts[0], parts[0], parts[0], parts[0]}
	}
	if len(parts) == 3 {
		parts = append(parts, "1234")
	}
	if len(parts) != 4 {
		return report.Seeds{}, errs.BadInputf("--seed %q: give one number or four comma-separated ones", f.seed)
	}
	var out report.Seeds
	for i, dst := range []**int64{&out.Random, &out.NumPy, &out.Torch, &out.Fewshot} {
		p := strings.TrimSpace(parts[i])
		if p == "None" {
			continue
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return report.Seeds{}, errs.BadInputf("--seed %q: %q is not an integer", f.seed, p)
		}
		*dst = &n
	}
	return out, nil
}

// engineOptions are the engine settings of --dtype, --batch-size,
// --prefix-cache-mb, --compile-cache and lm-eval's model arguments, on the
// device choice.
func (f *runFlags) engineOptions(choice engine.DeviceChoice) engine.Options {
	eo := engine.Options{Device: choice.Device, Backend: choice.Spec, DType: f.dtype, MaxLength: f.lmeval.maxLength,
		AddBOSToken: f.lmeval.addBOS, PrefixToken: f.lmeval.prefixToken, PrefixCacheMB: mustPrefixCache(f.prefixCacheMB),
		ChatTemplateArgs: f.think.chatArgs(), LoadIn4Bit: f.load4q, LoadIn8Bit: f.load8q,
		Dequantize4Bit: f.dequant4.or(false), Keep4BitPacked: !f.dequant4.or(true),
		CompileCache: f.compileCache, Warnf: warnf, SoftmaxDType: f.lmeval.softmax}
	eo.BatchSize, _ = strconv.Atoi(f.batch) // 0 for auto: the engine's default
	if eo.BatchSize == 0 && f.lmeval.maxBatch > 0 {
		eo.BatchSize = min(f.lmeval.maxBatch, engine.DefaultBatchSize)
	}
	return eo
}
