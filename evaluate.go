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

	// Shard, when set, evaluates one shard of the run's documents (see
	// Shard); Merge puts the shards' samples back together.
	Shard Shard

	// SamplingSeed is lm-eval's torch_random_seed (--seed's third value;
	// nil: DefaultSamplingSeed). Each sampled answer (do_sample) gets a seed
	// derived from it, the task, the document and the repeat (seeds.go).
	SamplingSeed *int64

	// Thinking splits each generation at its last think-end token as
	// lm-eval's think_end_token does: filters and metrics see the answer
	// only; the reasoning stays in Results.Samples (tasks.Thought) and its
	// tokens are counted (TaskResult.Thinking). With Thinking.Enabled
	// (enable_thinking=True), loglikelihood requests are refused as lm-eval
	// refuses them. The zero value changes nothing.
	Thinking lm.Thinking
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
	shard *TaskShard         // the shard's part of the task (Options.Shard); nil otherwise
}

// evaluation is an evaluation's tasks, built: their instances (a shard's
// part of them) and the groups they report.
type evaluation struct {
	runs   []*taskRun
	groups []tasks.Group
	start  time.Time
}

// Evaluate runs the tasks of opts.Tasks on lm and returns typed results.
// It respects ctx cancellation between and within LM calls (the LM sees
// ctx). Results do not depend on request order or chunking. With
// Options.Shard, only the shard's documents are evaluated (see Shard):
// the results then hold its samples (whatever LogSamples says) and
// TaskResult.Shard, and aggregates over its documents only, without
// stderrs; Merge computes the run's.
func Evaluate(ctx context.Context, model lm.LM, opts Options) (*Results, error) {
	start := time.Now()
	opts, err := settle(opts)
	if err != nil {
		return nil, err
	}
	ev, err := expand(opts, start)
	if err != nil {
		return nil, err
	}
	if err := ev.codeTasks(&opts); err != nil {
		return nil, err
	}
	if opts.Task.ChatTemplate, err = chatTemplate(model, opts.Task.ApplyChatTemplate); err != nil {
		return nil, err
	}
	pr := newProgress(opts.Progress, start)
	if err := ev.build(ctx, opts, pr); err != nil {
		return nil, err
	}
	if err := runRequests(ctx, model, ev.runs, opts, pr); err != nil {
		return nil, err
	}
	if opts.Shard.On() {
		opts.LogSamples, opts.BootstrapIters = true, -1
	}
	res, err := ev.score(opts)
	pr.report("score")
	return res, err
}

// settle applies Options' defaults and checks what Evaluate and Merge
// check before any work.
func settle(opts Options) (Options, error) {
	if opts.BootstrapIters == 0 {
		opts.BootstrapIters = metrics.DefaultBootstrapIters
	}
	if opts.Index == nil {
		opts.Index = tasks.NewIndex()
	}
	if opts.Task.ConfirmRunUnsafeCode { // code tasks' Python hooks may start the worker
		opts.Index.ConfirmRunUnsafeCode(true)
	}
	return opts, opts.Shard.Validate()
}

// expand resolves opts.Tasks into the evaluation's tasks and groups.
func expand(opts Options, start time.Time) (*evaluation, error) {
	ts, groups, err := opts.Index.Expand(opts.Tasks)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("evaluate: no tasks given")
	}
	ev := &evaluation{runs: make([]*taskRun, len(ts)), groups: groups, start: start}
	for i, t := range ts {
		ev.runs[i] = &taskRun{task: t}
	}
	return ev, nil
}

// build builds every task's instances (with Options.Shard, keeps the
// shard's).
func (ev *evaluation) build(ctx context.Context, opts Options, pr *progress) error {
	for _, r := range ev.runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		insts, err := r.task.Build(opts.Task)
		if err != nil {
			return fmt.Errorf("task %s: %w", r.task.Name(), err)
		}
		r.insts = insts
		if opts.Shard.On() {
			r.shard = shardRun(r, opts.Shard)
		}
		pr.docs += len(r.insts)
		pr.report("build")
	}
	return nil
}

// score scores every task and aggregates the groups.
func (ev *evaluation) score(opts Options) (*Results, error) {
	res := &Results{Start: ev.start}
	for _, r := range ev.runs {
		tr, err := scoreTask(r, opts)
		if err != nil {
			return nil, err
		}
		tr.Shard = r.shard
		res.Tasks = append(res.Tasks, tr)
	}
	res.Groups = aggregateGroups(ev.groups, res.Tasks)
	res.Duration = time.Since(ev.start)
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
