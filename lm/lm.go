// Package lm is the contract between the evaluator and a language model:
// the LM interface and its three request/response kinds. It imports nothing
// heavy, so a Go training loop can implement LM without linking GoMLX.
package lm

import "context"

// LM is the contract between the evaluator and a model. Every method returns
// results in the order of its requests, and a request's result never depends
// on the other requests in the call (batch size, padding, ordering).
type LM interface {
	// Loglikelihood scores Continuation given Context (lm-eval's
	// loglikelihood): the sum of the continuation tokens' log-probabilities
	// and whether each one was the argmax.
	Loglikelihood(ctx context.Context, reqs []LoglikelihoodRequest) ([]LoglikelihoodResult, error)
	// LoglikelihoodRolling scores a whole text with lm-eval's disjoint
	// rolling windows (every token predicted exactly once).
	LoglikelihoodRolling(ctx context.Context, reqs []RollingRequest) ([]RollingResult, error)
	// GenerateUntil decodes a continuation of Context until a stop string,
	// EOS or MaxTokens.
	GenerateUntil(ctx context.Context, reqs []GenerateRequest) ([]GenerateResult, error)
}

// LoglikelihoodRequest asks for log p(Continuation | Context). Either the
// strings or the token ids are set; ids win when both are. A word-boundary
// space belongs to the continuation (lm-eval moves trailing context
// whitespace there anyway).
type LoglikelihoodRequest struct {
	Context, Continuation       string
	ContextIDs, ContinuationIDs []int32
}

// LoglikelihoodResult is the answer to a LoglikelihoodRequest.
type LoglikelihoodResult struct {
	LogProb   float64 // Σ log p over the continuation tokens
	IsGreedy  bool    // every continuation token was the argmax
	NumTokens int     // continuation tokens scored
}

// RollingRequest asks for the log-likelihood of a whole text.
type RollingRequest struct {
	Text string
	IDs  []int32 // optional pre-tokenized text (used instead of Text when set)
}

// RollingResult is the answer to a RollingRequest.
type RollingResult struct {
	LogProb   float64 // Σ log p over every token of the text
	NumTokens int     // tokens predicted
}

// GenerateRequest asks for a continuation of Context.
type GenerateRequest struct {
	Context    string
	ContextIDs []int32  // optional pre-tokenized context
	Until      []string // stop strings; the output is cut at the first one
	MaxTokens  int      // max_gen_toks; 0 means 256 (lm-eval's default)
	// Sampling: Temperature 0 means greedy.
	Temperature float32
	TopP        float32 // 0 or 1: disabled
	TopK        int     // 0: disabled
	Seed        uint64  // per-request seed; same seed, same output whatever the batch
}

// GenerateResult is the answer to a GenerateRequest.
type GenerateResult struct {
	Text       string
	IDs        []int32
	StopReason string // "until" | "eos" | "max_tokens"
}
