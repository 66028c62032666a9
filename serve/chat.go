package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/goeval/goeval/lm"
)

// chatParams are a chat request's own keys.
type chatParams struct {
	logprobs bool
	top      int
	samp     sampling
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, f fields) error {
	if s.m.Chat == nil {
		return badRequest("messages", "this model has no chat template (tokenizer_config.json chat_template); use /v1/completions")
	}
	var raw []json.RawMessage
	var p chatParams
	var top *int
	if err := f.takeAll(keyed{"messages", &raw}, keyed{"logprobs", &p.logprobs}, keyed{"top_logprobs", &top}); err != nil {
		return err
	}
	samp, err := parseSampling(f, -1, "max_completion_tokens", "max_tokens")
	if err != nil {
		return err
	}
	p.samp = samp
	if err := f.rest(); err != nil {
		return err
	}
	msgs, err := chatMessages(raw)
	if err != nil {
		return err
	}
	if top != nil {
		p.top = *top
	}
	if err := s.checkChat(p, top != nil); err != nil {
		return err
	}
	text, err := s.m.Chat.ApplyChatTemplate(msgs, true)
	if err != nil {
		return badRequest("messages", "chat template: %v", err)
	}
	c := &completion{prompt: s.m.Tok.Encode(text, false), text: text}
	if len(c.prompt) == 0 {
		return badRequest("messages", "the rendered chat prompt has no tokens")
	}
	if err := checkIDs([][]int32{c.prompt}, s.vocab()); err != nil {
		return badRequest("messages", "the rendered chat prompt: %v", err)
	}
	if p.samp.MaxTokens < 0 {
		p.samp.MaxTokens = s.m.MaxLength - len(c.prompt)
		if p.samp.MaxTokens < 1 {
			return badRequest("messages", "the chat prompt is %d tokens, the model's whole length (%d)", len(c.prompt), s.m.MaxLength)
		}
	}
	if err := s.checkLength([][]int32{c.prompt}, p.samp.MaxTokens); err != nil {
		return err
	}
	if p.samp.Stream {
		return s.streamChat(w, r, p, c)
	}
	if p.samp.MaxTokens == 0 {
		return badRequest("max_tokens", "max_tokens must be ≥ 1 for chat")
	}
	if err := s.generate(r, p.samp, []*completion{c}, nil); err != nil {
		return err
	}
	if p.logprobs {
		if err := s.scoreCompletions(r, false, []*completion{c}); err != nil {
			return err
		}
	}
	writeJSON(w, s.chatResponse(p, c))
	return nil
}

func (s *Server) checkChat(p chatParams, topGiven bool) error {
	switch {
	case p.top < 0 || p.top > 1:
		return badRequest("top_logprobs", "top_logprobs must be 0 or 1: goeval serve reports the argmax token, got %d", p.top)
	case topGiven && !p.logprobs:
		return badRequest("top_logprobs", "top_logprobs needs logprobs: true")
	case p.logprobs && s.m.Scorer == nil:
		return badRequest("logprobs", "this model cannot return log-probs")
	case p.logprobs && p.samp.Stream:
		return badRequest("logprobs", "logprobs with stream is not implemented; ask without stream")
	}
	return nil
}

// chatMessages reads messages: role and content, a string or a list of
// text parts (other part types are refused).
func chatMessages(raw []json.RawMessage) ([]lm.ChatMessage, error) {
	if len(raw) == 0 {
		return nil, badRequest("messages", "messages is required and must not be empty")
	}
	out := make([]lm.ChatMessage, len(raw))
	for i, m := range raw {
		var msg struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Name    string          `json:"name"`
		}
		if err := json.Unmarshal(m, &msg); err != nil || msg.Role == "" {
			return nil, badRequest("messages", "messages[%d] must be an object with a role and content", i)
		}
		var text string
		var parts []struct{ Type, Text string }
		switch {
		case len(msg.Content) == 0 || string(msg.Content) == "null":
		case json.Unmarshal(msg.Content, &text) == nil:
		case json.Unmarshal(msg.Content, &parts) == nil:
			var b strings.Builder
			for _, p := range parts {
				if p.Type != "text" {
					return nil, badRequest("messages", "messages[%d]: content part of type %q is not supported (text only)", i, p.Type)
				}
				b.WriteString(p.Text)
			}
			text = b.String()
		default:
			return nil, badRequest("messages", "messages[%d].content must be a string or a list of text parts", i)
		}
		out[i] = lm.ChatMessage{Role: msg.Role, Content: text}
	}
	return out, nil
}

// chatResponse builds the non-streaming answer.
func (s *Server) chatResponse(p chatParams, c *completion) map[string]any {
	var choices []map[string]any
	done := 0
	for i, g := range c.gen {
		done += len(g.IDs)
		choice := map[string]any{"index": i, "message": map[string]any{"role": "assistant", "content": g.Text},
			"logprobs": nil, "finish_reason": finishReason(g.StopReason)}
		if p.logprobs {
			choice["logprobs"] = s.chatLogprobs(c, i, p.top)
		}
		choices = append(choices, choice)
	}
	return map[string]any{"id": newID("chatcmpl-"), "object": "chat.completion", "created": time.Now().Unix(),
		"model": s.m.Name, "choices": choices, "usage": usage(len(c.prompt), done)}
}

// chatLogprobs is a chat choice's {"content": [...]} over generated tokens.
func (s *Server) chatLogprobs(c *completion, gi, top int) map[string]any {
	g, sc := c.gen[gi], c.scores[gi]
	content := []map[string]any{}
	for k, id := range g.IDs {
		if sc == nil || k >= len(sc.LogProbs) {
			break
		}
		t := s.tokenText(id)
		e := map[string]any{"token": t, "logprob": finite(sc.LogProbs[k]), "bytes": []byte(t), "top_logprobs": []any{}}
		if top > 0 {
			tt := s.tokenText(sc.TopIDs[k])
			e["top_logprobs"] = []any{map[string]any{"token": tt, "logprob": finite(sc.TopLogProbs[k]), "bytes": []byte(tt)}}
		}
		content = append(content, e)
	}
	return map[string]any{"content": content}
}

// streamChat answers as chat.completion.chunk events.
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, p chatParams, c *completion) error {
	if p.samp.MaxTokens == 0 {
		return badRequest("max_tokens", "max_tokens must be ≥ 1 for chat")
	}
	ev := &sse{w: w}
	id, created := newID("chatcmpl-"), time.Now().Unix()
	chunk := func(i int, delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": s.m.Name,
			"choices": []map[string]any{{"index": i, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	started := make([]bool, p.samp.N)
	gens, err := s.streamGenerate(r, p.samp, []*completion{c}, func(i int, t string) error {
		if !started[i] {
			started[i] = true
			if err := ev.send(chunk(i, map[string]any{"role": "assistant", "content": ""}, nil)); err != nil {
				return err
			}
		}
		return ev.send(chunk(i, map[string]any{"content": t}, nil))
	})
	if err != nil {
		return ev.fail(err)
	}
	done := 0
	for i, g := range gens {
		done += len(g.IDs)
		if !started[i] {
			if err := ev.send(chunk(i, map[string]any{"role": "assistant", "content": ""}, nil)); err != nil {
				return err
			}
		}
		if err := ev.send(chunk(i, map[string]any{}, finishReason(g.StopReason))); err != nil {
			return err
		}
	}
	if p.samp.StreamUsage {
		if err := ev.send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": s.m.Name,
			"choices": []any{}, "usage": usage(len(c.prompt), done)}); err != nil {
			return err
		}
	}
	return ev.done()
}
