package apimodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/goeval/goeval/lm"
)

// apiError is an answer the server gave with a status other than 200.
type apiError struct {
	status int
	body   string
}

func (e *apiError) Error() string {
	var v struct {
		Error struct{ Message string }
	}
	msg := e.body
	if json.Unmarshal([]byte(e.body), &v) == nil && v.Error.Message != "" {
		msg = v.Error.Message
	}
	return fmt.Sprintf("server answered %d: %s", e.status, msg)
}

// retryable: rate limits, server errors and transport failures.
func retryable(err error) bool {
	var e *apiError
	if errors.As(err, &e) {
		return e.status == http.StatusTooManyRequests || e.status >= 500
	}
	return !errors.Is(err, context.Canceled)
}

// post sends body to endpoint (completions or chat/completions) and decodes
// the answer into out, retrying with exponential backoff (or the server's
// Retry-After).
func (m *LM) post(ctx context.Context, endpoint string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	wait := m.o.Backoff
	for attempt := 0; ; attempt++ {
		after, err := m.postOnce(ctx, m.base+"/"+endpoint, data, out)
		if err == nil || attempt >= m.o.Retries || !retryable(err) || ctx.Err() != nil {
			if err != nil {
				return fmt.Errorf("%s/%s: %w", m.base, endpoint, err)
			}
			return nil
		}
		if after > 0 {
			wait = after
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait *= 2
	}
}

// postOnce is one HTTP exchange; after is the server's Retry-After.
func (m *LM) postOnce(ctx context.Context, url string, data []byte, out any) (after time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if m.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.o.APIKey)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			after = time.Duration(s) * time.Second
		}
		return after, &apiError{status: resp.StatusCode, body: string(raw)}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return 0, fmt.Errorf("answer is not the expected JSON: %v", err)
	}
	return 0, nil
}

// completionAnswer is the part of a /v1/completions answer goeval reads.
type completionAnswer struct {
	Choices []struct {
		Index        int
		Text         string
		FinishReason string `json:"finish_reason"`
		Logprobs     *echoLogprobs
	}
	Usage tokenUsage
}

// echoLogprobs is a choice's logprobs: one entry per token, the first null.
type echoLogprobs struct {
	TokenLogprobs []*float64           `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
}

// sorted returns the choices in index order.
func (a *completionAnswer) sorted() {
	sort.SliceStable(a.Choices, func(i, j int) bool { return a.Choices[i].Index < a.Choices[j].Index })
}

// scoreRows sends the rows as echo requests (max_tokens 1, temperature 0,
// logprobs 1, as lm-eval does) and sums each continuation's log-probs:
// token_logprobs[ctxLen:-1]; greedy when each equals its position's top.
func (m *LM) scoreRows(ctx context.Context, rows []scoreRow) ([]lm.LoglikelihoodResult, error) {
	out := make([]lm.LoglikelihoodResult, len(rows))
	err := m.forEachBatch(ctx, len(rows), m.o.BatchSize, func(ctx context.Context, from, to int) error {
		prompts := make([][]int32, 0, to-from)
		for _, r := range rows[from:to] {
			prompts = append(prompts, r.prompt)
		}
		var ans completionAnswer
		body := map[string]any{"model": m.o.Model, "prompt": prompts, "max_tokens": 1, "temperature": 0,
			"logprobs": 1, "echo": true, "seed": 1234}
		if err := m.post(ctx, "completions", body, &ans); err != nil {
			return err
		}
		m.add(ans.Usage)
		if len(ans.Choices) != to-from {
			return fmt.Errorf("%s/completions: %d choices for %d prompts", m.base, len(ans.Choices), to-from)
		}
		ans.sorted()
		for i, c := range ans.Choices {
			r, err := parseScore(c.Logprobs, rows[from+i])
			if err != nil {
				return fmt.Errorf("%s/completions: prompt %d: %w", m.base, from+i, err)
			}
			out[from+i] = r
		}
		return nil
	})
	return out, err
}

// parseScore reads one echoed choice's continuation log-probs.
func parseScore(lp *echoLogprobs, r scoreRow) (lm.LoglikelihoodResult, error) {
	if lp == nil || len(lp.TokenLogprobs) < len(r.prompt) || len(lp.TopLogprobs) < len(r.prompt) {
		return lm.LoglikelihoodResult{}, fmt.Errorf("the answer has no log-probs for the %d prompt tokens (does the server support echo with logprobs?)", len(r.prompt))
	}
	res := lm.LoglikelihoodResult{IsGreedy: true}
	for k := max(r.ctxLen, 1); k < len(r.prompt); k++ {
		v := lp.TokenLogprobs[k]
		if v == nil {
			return res, fmt.Errorf("token %d has no log-prob", k)
		}
		res.LogProb += *v
		res.NumTokens++
		top, found := 0.0, false
		for _, t := range lp.TopLogprobs[k] {
			if !found || t > top {
				top, found = t, true
			}
		}
		res.IsGreedy = res.IsGreedy && found && *v == top
	}
	return res, nil
}
