package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/lm/lmtok"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/tasks"
)

func init() {
	register("merge", "merge the shards of a run (goeval run --shard) into the run's results and samples files", runMerge)
}

const mergeUsage = `Usage: goeval merge [--output-path OUT] [--data-dir DIR] SHARDS...
Merges the shards of one run (goeval run --shard INDEX/COUNT) into the run's results file (and samples
files with --log-samples), as one goeval run would have written them: the documents are built again,
every request is answered from the shards' samples, and the metrics, stderrs, bootstrap and groups
are computed by the evaluator's own code. Only date, total_evaluation_time_seconds (the shards' sum)
and goeval_timing (the shards' work, summed) differ from a one-process run's file.

SHARDS are shard folders (holding shard.json) or folders holding them one or two levels down, e.g. the
shards' --output-path. Every shard 0..COUNT-1 must be there once, all of the same goeval, model,
settings, tasks and seeds; else one line names the shards that differ and nothing is written.

Flags:
`

// runMerge is goeval merge.
func runMerge(args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("output-path", "", "where the run's files go, under <model name sanitized>/ (default: the shards' --output-path, when the folders are OUT/<model>/shard-i-of-N)")
	dataDir := fs.String("data-dir", "", "dataset root to build the documents from (default: the first shard's --data-dir; the datasets must give the shards' prompts)")
	model := fs.String("model", "", "with --apply-chat-template runs: the checkpoint folder whose tokenizer files hold the chat template (default: the shards' --model)")
	python := fs.String("python", "", "Python interpreter for the task files' Python functions, as goeval run's --python (default: the one the shards recorded, else python3; \"none\" refuses such tasks)")
	pyTimeout := fs.Duration("python-timeout", 0, "longest one call of a task file's Python function may take, as goeval run's (default: the shards' recorded value, else goeval run's default)")
	unsafeCode := fs.Bool("confirm-run-unsafe-code", false, "run the code tasks' recorded programs again in goeval's sandbox (their pass@k is computed by running them); refused without it, as goeval run")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), mergeUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errs.BadInput(err)
	}
	if fs.NArg() == 0 {
		return errs.BadInputf("give the shard folders, or the --output-path of the shards' runs")
	}
	shards, err := readShards(fs.Args())
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		var ok bool
		if dir, ok = report.DefaultMergeOutput(shards); !ok {
			return errs.BadInputf("the shard folders are not all OUT/<model>/shard-i-of-N under one OUT: give --output-path")
		}
	}
	py := mergePython(shards[0].Manifest.Run, *python, *pyTimeout)
	return mergeShards(context.Background(), shards, dir, *dataDir, *model, py, *unsafeCode)
}

// readShards finds and reads the shard folders of dirs and checks that
// they are one run's complete set.
func readShards(dirs []string) ([]*report.ShardRun, error) {
	paths, err := report.FindShards(dirs)
	if err != nil {
		return nil, err
	}
	var shards []*report.ShardRun
	for _, p := range paths {
		s, err := report.ReadShard(p)
		if err != nil {
			return nil, err
		}
		shards = append(shards, s)
	}
	slices.SortStableFunc(shards, func(a, b *report.ShardRun) int { return a.Manifest.Index - b.Manifest.Index })
	return shards, report.CheckShards(shards)
}

// mergeShards evaluates the shards' run from their samples and writes its
// files under out, after checking that every shard's samples line is
// the merged run's.
func mergeShards(ctx context.Context, shards []*report.ShardRun, out, dataDir, model string, py pythonFlags, unsafeCode bool) error {
	first := shards[0].Manifest
	opts, err := mergeOptions(first.Run, dataDir, py)
	if err != nil {
		return err
	}
	defer opts.Index.Close()
	opts.Task.ConfirmRunUnsafeCode = unsafeCode
	info, err := report.DecodeRunInfo(first.Info)
	if err != nil {
		return err
	}
	if opts.Task.ApplyChatTemplate {
		if opts.Task.ChatTemplate, err = mergeChatTemplate(info, model); err != nil {
			return err
		}
	}
	res, err := goevalpkg.Merge(ctx, opts, report.Recorded(shards))
	if err != nil {
		return err
	}
	res.Duration, info.Timing = shardsWork(shards)
	rep, samples, err := report.FromResults(res, info)
	if err != nil {
		return err
	}
	if err := report.CheckMergedSamples(shards, samples); err != nil {
		return err
	}
	if !first.Run.LogSamples {
		samples = nil
	}
	if err := report.PrepareOutput(out); err != nil {
		return err
	}
	path, err := report.WriteRun(out, rep, samples, res.Start)
	if err != nil {
		return err
	}
	fmt.Print(report.RunLine(rep, opts.Task.NumFewshot) + report.SummaryTable(rep))
	fmt.Fprintf(os.Stderr, "merged %d shards of %s; results written to %s\n", len(shards), first.ModelName, path)
	return nil
}

// mergeOptions are the evaluation options of the shards' run.
func mergeOptions(run report.EvalSettings, dataDir string, py pythonFlags) (goevalpkg.Options, error) {
	ix, err := taskIndex(run.IncludePath, py)
	if err != nil {
		return goevalpkg.Options{}, err
	}
	gk, err := tasks.ParseGenKwargs(run.GenKwargs)
	if err != nil {
		return goevalpkg.Options{}, err
	}
	o := goevalpkg.Options{Tasks: run.Tasks, Index: ix, Task: tasks.DefaultOptions(), BootstrapIters: run.BootstrapIters, LogSamples: true}
	t := &o.Task
	t.DataDir, t.HubCache, t.NumFewshot, t.Limit, t.Seed = run.DataDir, run.HubCache, run.NumFewshot, run.Limit, run.FewshotSeed
	if dataDir != "" {
		t.DataDir = dataDir
	}
	t.ApplyChatTemplate, t.FewshotAsMultiturn, t.SystemInstruction = run.ApplyChatTemplate, run.FewshotAsMultiturn, run.SystemInstruction
	t.GenKwargs, t.Samples = gk, run.Samples
	return o, nil
}

// mergePython is the merge's Python interpreter and timeout: the flags
// when given, else what the shards recorded (run), else goeval run's
// defaults (shards of an older goeval record neither).
func mergePython(run report.EvalSettings, path string, timeout time.Duration) pythonFlags {
	py := pythonFlags{path: cmp.Or(path, run.Python, "python3"), timeout: timeout}
	if py.timeout <= 0 {
		py.timeout = time.Duration(run.PythonTimeout * float64(time.Second))
	}
	if py.timeout <= 0 {
		py.timeout = tasks.DefaultPythonTimeout
	}
	return py
}

// mergeChatTemplate is the chat template the shards' prompts were
// rendered with: the fake LM's, or that of the checkpoint's tokenizer
// files (in modelDir, else the shards' --model folder), checked against
// the template the shards recorded.
func mergeChatTemplate(info report.RunInfo, modelDir string) (lm.ChatTemplater, error) {
	var ct lm.ChatTemplater
	if info.Settings.Model == "fake" {
		ct = lmtest.New()
	} else {
		dir := cmp.Or(modelDir, info.Settings.Model)
		tok, err := tokenizer.Load(dir)
		if err != nil {
			return nil, errs.BadInputf("the shards applied %s's chat template: its tokenizer files are needed to build the prompts again (--model DIR): %w", info.Settings.Model, err)
		}
		ct = lmtok.Chat{Tok: tok}
	}
	if ct.ChatTemplate() != info.Prompt.ChatTemplate {
		return nil, errs.BadInputf("the chat template of %s is not the one the shards applied", info.Settings.Model)
	}
	return ct, nil
}

// shardsWork is the shards' evaluation time and engine work, summed.
func shardsWork(shards []*report.ShardRun) (time.Duration, *report.Timing) {
	var secs float64
	var sum *report.Timing
	for _, s := range shards {
		secs += s.Manifest.Seconds
		info, err := report.DecodeRunInfo(s.Manifest.Info)
		if err != nil || info.Timing == nil {
			continue
		}
		if sum == nil {
			sum = &report.Timing{}
		}
		*sum = sum.Add(*info.Timing)
	}
	return time.Duration(secs * float64(time.Second)), sum
}
