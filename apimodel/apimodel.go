// Package apimodel is an lm.LM whose model runs behind an OpenAI-compatible
// HTTP API (goeval serve, vLLM, llama.cpp's server, OpenAI), with
// lm-eval's local-completions and local-chat-completions semantics:
// log-likelihoods from /v1/completions with echo and logprobs (token-id
// prompts, tokenized here with lm-eval's rules so the server scores the
// tokens a local run would), generation from /v1/completions or
// /v1/chat/completions. Requests go in batches of prompts, several in
// flight, with retries and backoff on 429, 5xx and network errors.
package apimodel

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmenc"
)

// Options configure an API model.
type Options struct {
	BaseURL   string // the API root (http://host:8000/v1) or the endpoint itself (…/v1/completions), as lm-eval's base_url
	Model     string // the "model" the server serves
	Chat      bool   // generation through /v1/chat/completions (no log-likelihoods)
	APIKey    string // sent as a bearer token when set
	Tokenizer lmenc.Tokenizer
	Specials  lmenc.Specials // lm-eval's add_special_tokens choice and prefix token
	// Template is the completions model's chat template (its tokenizer's,
	// lmtok.Chat); nil: none. A chat model's template is the server's.
	Template    lm.ChatTemplater
	MaxLength   int           // lm-eval's max_length (default 2048): prompts keep MaxLength−1 tokens, one being left for generation, as lm-eval's API models do
	MaxGen      int           // max_gen_toks when a request gives none (default 256)
	BatchSize   int           // prompts per HTTP request (default 8)
	Concurrency int           // HTTP requests in flight (default 4)
	Retries     int           // tries after the first, on 429, 5xx and network errors (default 3)
	Backoff     time.Duration // wait before the first retry, doubled each time (default 1 s)
	Timeout     time.Duration // per HTTP request (default 10 min)
	Client      *http.Client  // default: a client with Timeout
}

// LM implements lm.LM over the API.
type LM struct {
	usage  usage // tokens the server reported (Usage)
	o      Options
	maxLen int // MaxLength − 1: lm-eval's TemplateAPI.max_length
	client *http.Client
	base   string // the API root, without /completions
}

// New checks o and fills its defaults.
func New(o Options) (*LM, error) {
	if o.BaseURL == "" || o.Model == "" {
		return nil, errors.New("apimodel: a base URL and a model name are required")
	}
	if !strings.HasPrefix(o.BaseURL, "http://") && !strings.HasPrefix(o.BaseURL, "https://") {
		return nil, fmt.Errorf("apimodel: base URL %q must start with http:// or https://", o.BaseURL)
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxLength, 2048)
	def(&o.MaxGen, 256)
	def(&o.BatchSize, 8)
	def(&o.Concurrency, 4)
	if o.Retries < 0 {
		o.Retries = 0
	} else if o.Retries == 0 {
		o.Retries = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	c := o.Client
	if c == nil {
		c = &http.Client{Timeout: o.Timeout}
	}
	base := strings.TrimRight(o.BaseURL, "/")
	base = strings.TrimSuffix(strings.TrimSuffix(base, "/chat/completions"), "/completions")
	if o.MaxLength < 3 {
		return nil, fmt.Errorf("apimodel: max length %d is too small", o.MaxLength)
	}
	return &LM{o: o, maxLen: o.MaxLength - 1, client: c, base: base}, nil
}

// usage counts what the server reported in its answers' "usage".
type usage struct{ prompt, completion atomic.Int64 }

// Usage is the prompt and completion tokens the server reported so far (for
// a paid API's cost); servers that report none count 0.
func (m *LM) Usage() (prompt, completion int64) {
	return m.usage.prompt.Load(), m.usage.completion.Load()
}

// tokenUsage is an answer's "usage".
type tokenUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

func (m *LM) add(u tokenUsage) {
	m.usage.prompt.Add(u.PromptTokens)
	m.usage.completion.Add(u.CompletionTokens)
}

// Loglikelihood implements lm.LM through echo and logprobs.
func (m *LM) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	if m.o.Chat {
		return nil, errors.New("apimodel: chat completions return no prompt log-probs; use the completions API (openai-completions) for log-likelihood tasks")
	}
	rows := make([]scoreRow, len(reqs))
	for i, r := range reqs {
		c, k, err := m.encodePair(r)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i, err)
		}
		rows[i] = m.row(c, k)
	}
	return m.scoreRows(ctx, rows)
}

// LoglikelihoodRolling implements lm.LM: lm-eval's disjoint windows, each
// scored as a log-likelihood request.
func (m *LM) LoglikelihoodRolling(ctx context.Context, reqs []lm.RollingRequest) ([]lm.RollingResult, error) {
	if m.o.Chat {
		return nil, errors.New("apimodel: chat completions return no prompt log-probs; use the completions API (openai-completions) for perplexity tasks")
	}
	var rows []scoreRow
	var owner []int
	for i, r := range reqs {
		ids := r.IDs
		if ids == nil {
			if m.o.Tokenizer == nil {
				return nil, fmt.Errorf("request %d: a tokenizer is needed to score text", i)
			}
			ids = lmenc.TokEncode(m.o.Tokenizer, r.Text, m.o.Specials)
		}
		for _, w := range lmenc.RollingWindows(ids, m.maxLen-1, m.o.Specials.Prefix) { // one position for the context, as lm-eval
			rows = append(rows, m.row(w.Ctx, w.Cont))
			owner = append(owner, i)
		}
	}
	res, err := m.scoreRows(ctx, rows)
	if err != nil {
		return nil, err
	}
	out := make([]lm.RollingResult, len(reqs))
	for j, r := range res {
		out[owner[j]].LogProb += r.LogProb
		out[owner[j]].NumTokens += r.NumTokens
	}
	return out, nil
}

// encodePair is the request's context and continuation ids.
func (m *LM) encodePair(r lm.LoglikelihoodRequest) (ctxIDs, contIDs []int32, err error) {
	if len(r.ContextIDs) > 0 || len(r.ContinuationIDs) > 0 {
		if len(r.ContextIDs) == 0 {
			c, k := lmenc.SplitEmptyContext(m.o.Specials.Prefix, r.ContinuationIDs)
			return c, k, nil
		}
		return r.ContextIDs, r.ContinuationIDs, nil
	}
	if m.o.Tokenizer == nil {
		return nil, nil, errors.New("a tokenizer is needed to score text (the server is sent token ids)")
	}
	c, k := lmenc.Pair(m.o.Tokenizer, r.Context, r.Continuation, m.o.Specials)
	return c, k, nil
}

// scoreRow is one echo request: the prompt and how many of its leading
// tokens are context.
type scoreRow struct {
	prompt []int32
	ctxLen int
}

// row is lm-eval's TemplateAPI truncation: the last maxLen tokens of
// context + continuation, the context shortened by what was cut.
func (m *LM) row(ctxIDs, contIDs []int32) scoreRow {
	full := append(append([]int32{}, ctxIDs...), contIDs...)
	cut := max(0, len(full)-m.maxLen)
	return scoreRow{prompt: full[cut:], ctxLen: len(ctxIDs) - cut}
}

// forEachBatch runs f on batches of size items [from, to) of n,
// Concurrency at a time, and returns the first error.
func (m *LM) forEachBatch(ctx context.Context, n, size int, f func(ctx context.Context, from, to int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, m.o.Concurrency)
	var wg sync.WaitGroup
	for from := 0; from < n; from += size {
		to := min(n, from+size)
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(ctx, from, to); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}
