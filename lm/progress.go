package lm

import "context"

// Step is an LM's report of its progress inside one call: how much of the
// call's work is done, in units the LM chooses (tokens to run, say), and
// the requests it has finished.
type Step struct {
	Done, Total int // work done so far and in all, in the LM's units
	Requests    int // requests of the call finished so far
	Tokens      int // tokens computed so far (scored, prefilled or generated)
}

type stepKey struct{}

// WithStepFunc returns a context whose LM calls report their progress to
// fn (after each forward pass, say). fn runs on the LM's goroutine; keep
// it quick.
func WithStepFunc(ctx context.Context, fn func(Step)) context.Context {
	return context.WithValue(ctx, stepKey{}, fn)
}

// ReportStep sends s to the context's step function, if any. LMs call it;
// an LM that never does is still correct (progress then moves per call).
func ReportStep(ctx context.Context, s Step) {
	if fn, ok := ctx.Value(stepKey{}).(func(Step)); ok && fn != nil {
		fn(s)
	}
}
