package lm

import "context"

// TokenScorer is implemented by LMs that return per-token scores (goeval's
// engine): what an OpenAI completions server needs for echo and logprobs.
type TokenScorer interface {
	// ScoreTokens scores each continuation token given the context and
	// the tokens before it, and reports the argmax token at each of those
	// positions. Contexts must not be empty.
	ScoreTokens(ctx context.Context, reqs []TokenScoreRequest) ([]TokenScores, error)
}

// TokenScoreRequest is a pre-tokenized context and continuation.
type TokenScoreRequest struct {
	ContextIDs, ContinuationIDs []int32
}

// TokenScores has one entry per continuation token: its log-prob, and the
// most likely token at that position with its log-prob (equal to LogProbs[i]
// exactly when the continuation token is the argmax).
type TokenScores struct {
	LogProbs    []float64
	TopIDs      []int32
	TopLogProbs []float64
}

type tokenKey struct{}

// WithTokenFunc returns a context whose GenerateUntil calls report each
// generated token as it is picked: fn(request index in the call, token id).
// fn runs on the LM's goroutine; keep it quick (hand off to a channel).
func WithTokenFunc(ctx context.Context, fn func(req int, id int32)) context.Context {
	return context.WithValue(ctx, tokenKey{}, fn)
}

// TokenFunc returns the context's token function, or nil.
func TokenFunc(ctx context.Context) func(req int, id int32) {
	fn, _ := ctx.Value(tokenKey{}).(func(int, int32))
	return fn
}
