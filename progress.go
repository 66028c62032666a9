package goeval

import "time"

// progress accumulates counters and forwards reports to the callback.
type progress struct {
	fn                func(Progress)
	start             time.Time
	docs, done, total int
	tokens            int
}

func newProgress(fn func(Progress), start time.Time) *progress {
	return &progress{fn: fn, start: start}
}

func (p *progress) report(stage string) {
	if p.fn == nil {
		return
	}
	el := time.Since(p.start)
	r := Progress{Stage: stage, Docs: p.docs, RequestsDone: p.done, RequestsTotal: p.total, Tokens: p.tokens, Elapsed: el}
	if s := el.Seconds(); s > 0 {
		r.TokensPerSec = float64(p.tokens) / s
	}
	if p.done > 0 && p.total > p.done {
		r.ETA = time.Duration(float64(el) * float64(p.total-p.done) / float64(p.done))
	}
	p.fn(r)
}
