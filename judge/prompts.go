// Package judge compares models on open-ended prompts with an LLM judge:
// pairwise (each pair judged in both orders, so a judge's position bias
// becomes ties instead of wins) or single-answer grading (0–10), with win
// rates, score differences and their 95 % intervals. It knows the lm
// contract only: the caller generates the answers and hands it a judge LM
// (a chat model behind an OpenAI-compatible API, say).
package judge

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// Prompt is one question to answer.
type Prompt struct {
	ID   string
	Text string
}

// LoadPrompts reads prompts from JSON-lines or parquet files: a row's
// "prompt" (a string), else the first user turn of its "messages" (the
// UltraChat schema: [{"role", "content"}, …]); the id is "prompt_id" or
// the row number. n > 0 keeps the first n.
func LoadPrompts(path string, n int) ([]Prompt, error) {
	rows, err := tasks.ReadRows(path)
	if err != nil {
		return nil, err
	}
	var out []Prompt
	for i, r := range rows {
		if n > 0 && len(out) == n {
			break
		}
		text, ok := r["prompt"].(string)
		if !ok {
			text, ok = firstUserTurn(r["messages"])
		}
		if !ok || strings.TrimSpace(text) == "" {
			return nil, errs.BadInputf("%s row %d: no \"prompt\" string and no user message in \"messages\"", path, i+1)
		}
		id := fmt.Sprint(i)
		if v, ok := r["prompt_id"]; ok && v != nil {
			id = fmt.Sprint(v)
		}
		out = append(out, Prompt{ID: id, Text: text})
	}
	if len(out) == 0 {
		return nil, errs.BadInputf("%s has no prompts", path)
	}
	return out, nil
}

// firstUserTurn is the content of the first {"role": "user"} message.
func firstUserTurn(v any) (string, bool) {
	msgs, _ := v.([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "user" {
			s, ok := mm["content"].(string)
			return s, ok
		}
	}
	return "", false
}
