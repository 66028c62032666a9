package apimodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmenc"
)

// GenerateUntil implements lm.LM: completions (the context as token ids when
// a tokenizer is set, else as text) or chat (the context as the messages
// ChatJSON rendered, else one user message).
func (m *LM) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	size := m.o.BatchSize
	if m.o.Chat || m.o.Tokenizer == nil {
		size = 1 // a chat request holds one conversation; text goes one prompt per request (some servers take a string only)
	}
	err := m.forEachBatch(ctx, len(reqs), size, func(ctx context.Context, from, to int) error {
		// Requests of one HTTP call share its sampling settings: split where they differ.
		for start := from; start < to; {
			end := start + 1
			for end < to && sameSettings(reqs[start], reqs[end]) {
				end++
			}
			if err := m.generate(ctx, reqs[start:end], out[start:end]); err != nil {
				return err
			}
			start = end
		}
		return nil
	})
	return out, err
}

// sameSettings: two requests can share one completions call.
func sameSettings(a, b lm.GenerateRequest) bool {
	return a.MaxTokens == b.MaxTokens && a.Temperature == b.Temperature && a.TopP == b.TopP && a.TopK == b.TopK &&
		a.Seed == b.Seed && strings.Join(a.Until, "\x00") == strings.Join(b.Until, "\x00")
}

// body is the sampling part of a request for r.
func (m *LM) body(r lm.GenerateRequest) map[string]any {
	maxTok := r.MaxTokens
	if maxTok <= 0 {
		maxTok = m.o.MaxGen
	}
	b := map[string]any{"model": m.o.Model, "max_tokens": maxTok, "temperature": r.Temperature, "seed": r.Seed}
	if len(r.Until) > 0 {
		b["stop"] = r.Until
	}
	if r.TopP > 0 && r.TopP < 1 {
		b["top_p"] = r.TopP
	}
	if r.TopK > 0 {
		b["top_k"] = r.TopK
	}
	return b
}

// generate runs reqs (same settings) as one call and fills out.
func (m *LM) generate(ctx context.Context, reqs []lm.GenerateRequest, out []lm.GenerateResult) error {
	b := m.body(reqs[0])
	if m.o.Chat {
		return m.chat(ctx, reqs[0], b, &out[0])
	}
	prompts := make([]any, len(reqs))
	keep := max(1, m.maxLen-b["max_tokens"].(int)) // lm-eval: the last max_length − max_gen_toks tokens
	for i, r := range reqs {
		ids := r.ContextIDs
		if len(ids) == 0 && m.o.Tokenizer != nil {
			ids = lmenc.GenEncode(m.o.Tokenizer, r.Context, m.o.Specials)
		}
		if len(ids) > 0 {
			prompts[i] = ids[max(0, len(ids)-keep):]
		} else {
			prompts[i] = r.Context
		}
	}
	b["prompt"] = prompts
	if text, ok := prompts[0].(string); ok && len(prompts) == 1 {
		b["prompt"] = text
	}
	var ans completionAnswer
	if err := m.post(ctx, "completions", b, &ans); err != nil {
		return err
	}
	m.add(ans.Usage)
	if len(ans.Choices) != len(reqs) {
		return fmt.Errorf("%s/completions: %d choices for %d prompts", m.base, len(ans.Choices), len(reqs))
	}
	ans.sorted()
	for i, c := range ans.Choices {
		out[i] = result(c.Text, c.FinishReason, reqs[i].Until)
	}
	return nil
}

// chat runs one conversation.
func (m *LM) chat(ctx context.Context, r lm.GenerateRequest, b map[string]any, out *lm.GenerateResult) error {
	var msgs []lm.ChatMessage
	if err := json.Unmarshal([]byte(r.Context), &msgs); err != nil || len(msgs) == 0 || !strings.HasPrefix(strings.TrimSpace(r.Context), "[") {
		msgs = []lm.ChatMessage{{Role: "user", Content: r.Context}}
	}
	wire := make([]map[string]string, len(msgs))
	for i, msg := range msgs {
		wire[i] = map[string]string{"role": msg.Role, "content": msg.Content}
	}
	b["messages"] = wire
	var ans struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage tokenUsage
	}
	if err := m.post(ctx, "chat/completions", b, &ans); err != nil {
		return err
	}
	m.add(ans.Usage)
	if len(ans.Choices) == 0 {
		return fmt.Errorf("%s/chat/completions: no choices", m.base)
	}
	*out = result(ans.Choices[0].Message.Content, ans.Choices[0].FinishReason, r.Until)
	return nil
}

// result is a generation answer cut at the first stop string (servers
// should have, but not all do) with the LM contract's stop reason.
func result(text, finish string, until []string) lm.GenerateResult {
	reason := "until"
	if finish == "length" {
		reason = "max_tokens"
	}
	if i := lm.FirstStop(text, until); i >= 0 {
		text, reason = text[:i], "until"
	}
	return lm.GenerateResult{Text: text, StopReason: reason}
}

// ServerTemplate is what a results file records as a chat model's
// template: the server applies its own.
const ServerTemplate = "the server's (chat completions)"

// ChatTemplate implements lm.ChatTemplater: a chat model's template is the
// server's (ServerTemplate); a completions model's is Options.Template's
// ("" without one).
func (l *LM) ChatTemplate() string {
	switch {
	case l.o.Chat:
		return ServerTemplate
	case l.o.Template != nil:
		return l.o.Template.ChatTemplate()
	}
	return ""
}

// ApplyChatTemplate implements lm.ChatTemplater: for a chat model the
// messages as ChatJSON sends them, for a completions model the prompt
// Options.Template renders.
func (l *LM) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	switch {
	case l.o.Chat:
		return ChatJSON(msgs, addGenerationPrompt)
	case l.o.Template != nil:
		return l.o.Template.ApplyChatTemplate(msgs, addGenerationPrompt)
	}
	return "", errors.New("apimodel: a completions model needs Options.Template for a chat template")
}

// ChatJSON renders a conversation for the chat API: the messages as
// JSON, which GenerateUntil sends as they are (lm-eval's chat API models
// receive the conversation, not a rendered prompt). Without a generation
// prompt (a final message to continue) it fails: chat APIs cannot.
func ChatJSON(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	if !addGenerationPrompt {
		return "", fmt.Errorf("a chat API cannot continue a final message (gen_prefix); use the completions API")
	}
	b, err := json.Marshal(msgs)
	return string(b), err
}
