package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestJudgePositionBias: a judge that always prefers the answer shown first
// (a test double of an OpenAI chat endpoint) makes no winner: every pair is
// judged in both orders, the verdicts disagree, and each counts as a tie;
// a judge preferring the longer answer is position-consistent.
func TestJudgePositionBias(t *testing.T) {
	dir := t.TempDir()
	for i, m := range []string{"m1", "m2"} {
		p := filepath.Join(dir, m)
		for _, args := range [][]string{{"synth", "tokenizer", "--out", p, "--vocab", "300"},
			{"synth", "model", "--hidden", "32", "--layers", "1", "--heads", "2", "--kv-heads", "1", "--intermediate", "64",
				"--tokenizer", p, "--seed", string(rune('1' + i)), "--out", p}} {
			if _, stderr, code := goeval(t, args...); code != 0 {
				t.Fatalf("goeval %v: %s", args, stderr)
			}
		}
	}
	prompts := filepath.Join(dir, "prompts.jsonl")
	os.WriteFile(prompts, []byte("{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"prompt\": \"c\"}\n{\"prompt\": \"d\"}\n"), 0o644)
	for _, c := range []struct {
		name        string
		verdict     func(user string) string
		wins, ties  int
		consistency float64
	}{
		{"first position", func(string) string { return "The first one. [[A]]" }, 0, 4, 0},
		{"longer answer", func(u string) string {
			a, b := between(u, "[Assistant A's answer]\n", "\n\n["), between(u, "[Assistant B's answer]\n", "")
			if len(a) >= len(b) {
				return "[[A]]"
			}
			return "[[B]]"
		}, -1, -1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int64
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				var req struct {
					Messages []struct{ Role, Content string }
				}
				json.NewDecoder(r.Body).Decode(&req)
				text := c.verdict(req.Messages[len(req.Messages)-1].Content)
				json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": text}, "finish_reason": "stop"}},
					"usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 5}})
			}))
			defer ts.Close()
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			stdout, stderr, code := goeval(t, "judge", "--prompts", prompts, "--model", filepath.Join(dir, "m1"), "--model", filepath.Join(dir, "m2"),
				"--judge-url", ts.URL+"/v1", "--judge-model", "j", "--output", out, "--max-tokens", "6", "--temperature", "0",
				"--judge-price-in", "2.5", "--judge-price-out", "10")
			if code != 0 {
				t.Fatalf("goeval judge: %s\n%s", stderr, stdout)
			}
			var sum struct {
				Summaries []struct {
					Wins, Ties, Losses int
					Consistency        float64
				}
				PromptTokens int64   `json:"judge_prompt_tokens"`
				Cost         float64 `json:"judge_estimated_cost_usd"`
			}
			data, _ := os.ReadFile(filepath.Join(out, "summary.json"))
			if err := json.Unmarshal(data, &sum); err != nil || len(sum.Summaries) != 1 {
				t.Fatalf("summary.json: %v %s", err, data)
			}
			// 8 judge calls × (100 prompt + 5 completion tokens) at $2.5 / $10 per million.
			if sum.PromptTokens != 800 || sum.Cost != (800*2.5+40*10)/1e6 || !strings.Contains(stdout, "judge tokens: 800 prompt + 40 completion") {
				t.Errorf("usage: %d tokens, $%v; stdout %s", sum.PromptTokens, sum.Cost, stdout)
			}
			s := sum.Summaries[0]
			if calls.Load() != 8 || s.Wins+s.Ties+s.Losses != 4 || s.Consistency != c.consistency ||
				(c.ties >= 0 && (s.Ties != c.ties || s.Wins != c.wins)) {
				t.Errorf("%d judge calls, summary %+v; want 8 calls, ties %d, consistency %v\n%s", calls.Load(), s, c.ties, c.consistency, stdout)
			}
		})
	}
}

// between is the text of s after from and before the next to ("": the end).
func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	if to == "" {
		return rest
	}
	body, _, _ := strings.Cut(rest, to)
	return body
}
