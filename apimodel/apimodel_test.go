package apimodel

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goeval/goeval/lm"
)

// echoServer answers completions with echo: every prompt token t at
// position k > 0 gets log-prob −t/100, and the top token at k is t when t
// is even (so even tokens are "greedy"), else 0 with −0.001. Choices come
// back in reverse order (clients must sort by index).
func echoServer(t *testing.T, calls *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Prompt    [][]int32
			Echo      bool
			Logprobs  int
			MaxTokens int `json:"max_tokens"`
			Model     string
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Echo || req.Logprobs != 1 || req.MaxTokens != 1 || req.Model != "m" {
			http.Error(w, `{"error":{"message":"bad request shape"}}`, 400)
			return
		}
		var choices []map[string]any
		for i, p := range req.Prompt {
			lps := []any{nil}
			tops := []any{nil}
			for _, tok := range p[1:] {
				lps = append(lps, -float64(tok)/100)
				if tok%2 == 0 {
					tops = append(tops, map[string]float64{"x": -float64(tok) / 100})
				} else {
					tops = append(tops, map[string]float64{"y": -0.001})
				}
			}
			lps, tops = append(lps, -0.5), append(tops, map[string]float64{"z": -0.5}) // the generated token
			choices = append([]map[string]any{{"index": i, "text": "", "logprobs": map[string]any{"token_logprobs": lps, "top_logprobs": tops}}}, choices...)
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": choices})
	}))
}

func TestLoglikelihoodEcho(t *testing.T) {
	var calls atomic.Int64
	ts := echoServer(t, &calls)
	defer ts.Close()
	m, err := New(Options{BaseURL: ts.URL + "/v1/completions", Model: "m", BatchSize: 2, MaxLength: 7})
	if err != nil {
		t.Fatal(err)
	}
	reqs := []lm.LoglikelihoodRequest{
		{ContextIDs: []int32{1, 2}, ContinuationIDs: []int32{4, 6}},             // greedy, −0.10
		{ContextIDs: []int32{9}, ContinuationIDs: []int32{3}},                   // not greedy, −0.03
		{ContextIDs: []int32{5, 7, 9, 11}, ContinuationIDs: []int32{8, 10, 12}}, // truncated to 6 tokens: still 3 scored
	}
	got, err := m.Loglikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	want := []lm.LoglikelihoodResult{{LogProb: -0.10, IsGreedy: true, NumTokens: 2}, {LogProb: -0.03, NumTokens: 1}, {LogProb: -0.30, IsGreedy: true, NumTokens: 3}}
	for i := range want {
		if d := got[i].LogProb - want[i].LogProb; d > 1e-12 || d < -1e-12 || got[i].IsGreedy != want[i].IsGreedy || got[i].NumTokens != want[i].NumTokens {
			t.Errorf("request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if calls.Load() != 2 {
		t.Errorf("%d HTTP requests for 3 prompts in batches of 2", calls.Load())
	}
	rolled, err := m.LoglikelihoodRolling(context.Background(), []lm.RollingRequest{{IDs: []int32{2, 4, 6, 8, 10, 12, 14, 16}}})
	if err != nil || rolled[0].NumTokens != 8 {
		t.Fatalf("rolling: %+v %v, want all 8 tokens scored once", rolled, err)
	}
}

// TestRetries: 503s are retried (after Retry-After), a 400 is not and its
// message reaches the error.
func TestRetries(t *testing.T) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch k := n.Add(1); {
		case k <= 2:
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":{"message":"busy"}}`, 503)
		case strings.Contains(r.URL.Path, "chat"):
			http.Error(w, `{"error":{"message":"temperature must be in [0, 2]"}}`, 400)
		default:
			json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"index": 0, "text": "abc\nQ: more", "finish_reason": "stop"}}})
		}
	}))
	defer ts.Close()
	m, _ := New(Options{BaseURL: ts.URL + "/v1", Model: "m", Backoff: time.Millisecond})
	res, err := m.GenerateUntil(context.Background(), []lm.GenerateRequest{{Context: "x", Until: []string{"Q:"}}})
	if err != nil || res[0].Text != "abc\n" || res[0].StopReason != "until" || n.Load() != 3 {
		t.Fatalf("after two 503s: %+v %v (%d requests)", res, err, n.Load())
	}
	c, _ := New(Options{BaseURL: ts.URL + "/v1", Model: "m", Chat: true, Backoff: time.Millisecond})
	_, err = c.GenerateUntil(context.Background(), []lm.GenerateRequest{{Context: "x"}})
	if err == nil || !strings.Contains(err.Error(), "400: temperature must be in [0, 2]") || n.Load() != 4 {
		t.Fatalf("400: %v after %d requests, want one try naming the server's message", err, n.Load())
	}
	if _, err := c.Loglikelihood(context.Background(), []lm.LoglikelihoodRequest{{Context: "a", Continuation: "b"}}); err == nil {
		t.Error("chat model scored a log-likelihood")
	}
}

// TestChatMessages: a conversation rendered by ChatJSON goes out as
// messages; plain text as one user message.
func TestChatMessages(t *testing.T) {
	var got [][]map[string]string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []map[string]string }
		json.NewDecoder(r.Body).Decode(&req)
		got = append(got, req.Messages)
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": "ok"}, "finish_reason": "length"}}})
	}))
	defer ts.Close()
	m, _ := New(Options{BaseURL: ts.URL, Model: "m", Chat: true, Concurrency: 1})
	conv, err := ChatJSON([]lm.ChatMessage{{Role: "system", Content: "s"}, {Role: "user", Content: "q"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.GenerateUntil(context.Background(), []lm.GenerateRequest{{Context: conv}, {Context: "plain"}})
	if err != nil || res[0].Text != "ok" || res[0].StopReason != "max_tokens" {
		t.Fatalf("%+v %v", res, err)
	}
	if len(got) != 2 || len(got[0]) != 2 || got[0][1]["content"] != "q" || got[1][0]["role"] != "user" || got[1][0]["content"] != "plain" {
		t.Errorf("messages sent: %v", got)
	}
	if _, err := ChatJSON(nil, false); err == nil {
		t.Error("continuing a final message accepted")
	}
}
