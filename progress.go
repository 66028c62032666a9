package goeval

import (
	"context"
	"time"

	"github.com/goeval/goeval/lm"
)

// progress accumulates counters and forwards reports to the callback.
type progress struct {
	fn                func(Progress)
	start             time.Time
	docs, done, total int
	tokens            int
	computed          int     // tokens run in finished LM calls (lm.Step)
	step              lm.Step // the current LM call's last step
}

func newProgress(fn func(Progress), start time.Time) *progress {
	return &progress{fn: fn, start: start}
}

func (p *progress) report(stage string) {
	if p.fn == nil {
		return
	}
	el := time.Since(p.start)
	done := p.done + p.step.Requests
	r := Progress{Stage: stage, Docs: p.docs, RequestsDone: done, RequestsTotal: p.total, Tokens: p.tokens,
		Computed: p.computed + p.step.Tokens, Elapsed: el, Partial: p.step != lm.Step{}}
	if s := el.Seconds(); s > 0 {
		r.TokensPerSec = float64(p.tokens) / s
		if r.Computed > 0 {
			r.TokensPerSec = float64(r.Computed) / s
		}
	}
	if done > 0 && p.total > done {
		r.ETA = time.Duration(float64(el) * float64(p.total-done) / float64(done))
	}
	p.fn(r)
}

// within returns ctx with an lm step function that reports the progress of
// an LM call of n requests after each of its steps, and a function to call
// when the call has ended.
func (p *progress) within(ctx context.Context, stage string, n int) (context.Context, func()) {
	if p.fn == nil {
		return ctx, func() {}
	}
	ctx = lm.WithStepFunc(ctx, func(s lm.Step) {
		s.Requests = min(max(s.Requests, 0), n)
		p.step = s
		p.report(stage)
	})
	return ctx, func() {
		p.computed += p.step.Tokens
		p.step = lm.Step{}
	}
}
