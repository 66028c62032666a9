package lm

import "context"

// Hooks a GenerateUntil call's context may carry beside lm.WithTokenFunc's
// (tokens.go): early results, and requests fed into the running call.

type doneKey struct{}

// WithDoneFunc returns a context whose GenerateUntil calls report each
// request's result as soon as it is final, before the call returns:
// fn(request index in the call, its result), once per request that
// finishes (a failed call may not report every request). An LM that does
// not report early calls nothing; the call's return value is complete
// either way. fn runs on the LM's goroutine; keep it quick.
func WithDoneFunc(ctx context.Context, fn func(req int, res GenerateResult)) context.Context {
	return context.WithValue(ctx, doneKey{}, fn)
}

// DoneFunc returns the context's done function, or nil.
func DoneFunc(ctx context.Context) func(req int, res GenerateResult) {
	fn, _ := ctx.Value(doneKey{}).(func(int, GenerateResult))
	return fn
}

// SubCall returns the context for a GenerateUntil call over some of a
// call's requests, its request j being the caller's idx[j]: its token and
// done functions report under the caller's indices, and it takes no fed
// requests (their indices would collide): wrappers that split or filter a
// call's requests pass it down.
func SubCall(ctx context.Context, idx []int) context.Context {
	if Feed(ctx) != nil {
		ctx = WithFeed(ctx, nil)
	}
	if fn := TokenFunc(ctx); fn != nil {
		ctx = WithTokenFunc(ctx, func(j int, id int32) { fn(idx[j], id) })
	}
	if fn := DoneFunc(ctx); fn != nil {
		ctx = WithDoneFunc(ctx, func(j int, res GenerateResult) { fn(idx[j], res) })
	}
	return ctx
}

type feedKey struct{}

// FeedFunc hands a running GenerateUntil call more requests (continuous
// batching across callers): asked for up to rows requests, it returns those
// that should join the call now, in order, each one that fits(q) accepts
// (the call's cache holds its prompt and tokens). It runs on the LM's
// goroutine and must not block.
type FeedFunc func(rows int, fits func(GenerateRequest) bool) []GenerateRequest

// WithFeed returns a context whose GenerateUntil calls may take requests
// from fn while they run, into rows that free up. A fed request's index in
// the context's TokenFunc and DoneFunc continues after the call's own
// (len(reqs), len(reqs)+1, … in feed order); its result comes only through
// DoneFunc, and the call returns its own requests' results alone. The fed
// requests not reported when a call fails failed with it. An LM that does
// not take fed requests never calls fn.
func WithFeed(ctx context.Context, fn FeedFunc) context.Context {
	return context.WithValue(ctx, feedKey{}, fn)
}

// Feed returns the context's feed, or nil.
func Feed(ctx context.Context) FeedFunc {
	fn, _ := ctx.Value(feedKey{}).(FeedFunc)
	return fn
}
