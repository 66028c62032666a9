// Package goeval evaluates language models on lm-evaluation-harness tasks:
// Evaluate builds every task's requests, runs them through an lm.LM
// (once per request kind), scores them with the tasks' metrics and
// aggregates per task and group exactly as lm-eval v0.4.x does. It keeps no
// global state, so a Go training loop can call it with its own LM.
package goeval

import (
	"context"
	"fmt"
	"time"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/tasks"
)

// Options configure one evaluation.
type Options struct {
	Tasks []string // task and group names (groups expand to their subtasks), or YAML file paths
	// Index resolves Tasks: goeval's built-in tasks plus the task YAML
	// files and hooks given to it (lm-eval's TaskManager). nil means the
	// built-ins only.
	Index *tasks.Index
	// Task are the task options: data dir, few-shot, limit, seed, gen
	// kwargs. With Task.ApplyChatTemplate, prompts are rendered with the
	// model's chat template (lm.ChatTemplater); Evaluate fails before any
	// work when the model has none, and sets Task.ChatTemplate itself.
	Task tasks.Options

	// BootstrapIters is lm-eval's bootstrap_iters: 0 means the default
	// (100000); a negative value disables stderrs ("N/A").
	BootstrapIters int
	// LogSamples keeps the per-sample rows (Results.Samples).
	LogSamples bool
	// Progress, when set, receives progress reports: after each LM call and,
	// for LMs that report their steps (lm.ReportStep), after each step.
	// Requests are then sent to the LM in chunks of ProgressChunk (default
	// 2048) so that progress also moves for LMs that do not; by the lm.LM
	// contract this does not change any result.
	Progress      func(Progress)
	ProgressChunk int
}

// Progress is one progress report.
type Progress struct {
	Stage         string // "build", "loglikelihood", "loglikelihood_rolling", "generate_until", "score"
	Docs          int    // documents built
	RequestsDone  int    // requests answered so far (all kinds)
	RequestsTotal int
	Tokens        int // tokens scored or generated so far (as the LM reports them)
	// Computed is the tokens the model has run so far (contexts included),
	// for LMs that report their steps (lm.ReportStep, as goeval's engine
	// does after each forward pass); 0 otherwise.
	Computed     int
	Elapsed      time.Duration
	TokensPerSec float64 // Computed per second, or Tokens per second when Computed is 0
	// Partial marks a report from inside an LM call (after one of its
	// steps): RequestsDone then includes the LM's estimate for the call,
	// whose answers are not delivered (or cached) yet.
	Partial bool
	ETA     time.Duration // estimated time left for the requests; 0 when unknown
}

// taskRun is one task's state through an evaluation.
type taskRun struct {
	task  tasks.Task
	insts []tasks.Instance
	resps [][]tasks.Response // per instance, per request
}

// Evaluate runs the tasks of opts.Tasks on lm and returns typed results.
// It respects ctx cancellation between and within LM calls (the LM sees
// ctx). Results do not depend on request order or chunking.
func Evaluate(ctx context.Context, model lm.LM, opts Options) (*Results, error) {
	start := time.Now()
	if opts.BootstrapIters == 0 {
		opts.BootstrapIters = metrics.DefaultBootstrapIters
	}
	ix := opts.Index
	if ix == nil {
		ix = tasks.NewIndex()
	}
	ts, groups, err := ix.Expand(opts.Tasks)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("evaluate: no tasks given")
	}
	if opts.Task.ChatTemplate, err = chatTemplate(model, opts.Task.ApplyChatTemplate); err != nil {
		return nil, err
	}
	runs := make([]*taskRun, len(ts))
	pr := newProgress(opts.Progress, start)
	for i, t := range ts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		insts, err := t.Build(opts.Task)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.Name(), err)
		}
		runs[i] = &taskRun{task: t, insts: insts}
		pr.docs += len(insts)
		pr.report("build")
	}
	if err := runRequests(ctx, model, runs, opts, pr); err != nil {
		return nil, err
	}
	res := &Results{Groups: nil, Start: start}
	for _, r := range runs {
		tr, err := scoreTask(r, opts)
		if err != nil {
			return nil, err
		}
		res.Tasks = append(res.Tasks, tr)
	}
	pr.report("score")
	res.Groups = aggregateGroups(groups, res.Tasks)
	res.Duration = time.Since(start)
	return res, nil
}

// chatTemplate is model's chat template when apply asks for one (nil
// otherwise); a model without one is bad input.
func chatTemplate(model lm.LM, apply bool) (lm.ChatTemplater, error) {
	if !apply {
		return nil, nil
	}
	ct, ok := model.(lm.ChatTemplater)
	if !ok || ct.ChatTemplate() == "" {
		return nil, errs.BadInputf("the prompts ask for a chat template, but the model has none (a checkpoint's is tokenizer_config.json's chat_template)")
	}
	return ct, nil
}
