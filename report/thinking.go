package report

import (
	"encoding/json"
	"strings"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/tasks"
)

// ThinkingKey is the results file's key for the reasoning cut from each
// task's generations (goeval.Options.Thinking, lm-eval's think_end_token):
// per task, the generations split, those where the think-end token
// occurs, and the reasoning and answer tokens. lm-eval records none of it.
const ThinkingKey = "goeval_thinking"

// Samples-file keys of a generation's reasoning, one entry per response as
// "resps" nests them (request, then repeat). lm-eval 0.4.13 logs only the
// answer in "resps" and drops the reasoning; goeval keeps it beside it.
const (
	ReasoningKey       = "goeval_reasoning"
	ReasoningTokensKey = "goeval_reasoning_tokens"
	AnswerTokensKey    = "goeval_answer_tokens"
)

// thinkingEntry is the results file's ThinkingKey object, nil when no task
// had a generation split.
func thinkingEntry(r *goeval.Results) *py.Map[any] {
	var out *py.Map[any]
	for _, t := range r.Tasks {
		c := t.Thinking
		if c == nil {
			continue
		}
		if out == nil {
			out = py.NewMap[any]()
		}
		e := py.NewMap[any]()
		e.Set("generations", c.Generations)
		e.Set("think_end_found", c.Found)
		e.Set("counted", c.Counted)
		e.Set("reasoning_tokens", c.ReasoningTokens)
		e.Set("answer_tokens", c.AnswerTokens)
		out.Set(t.Name, e)
	}
	return out
}

// addThoughts sets the sample's reasoning keys when its generations were
// split; token counts are null where they are unknown.
func addThoughts(line *Sample, s goeval.Sample) {
	var reasoning, rtoks, atoks []any
	split := false
	for i, q := range s.Requests {
		if q.Kind != tasks.ReqGenerate || i >= len(s.Responses) {
			continue
		}
		var r, rt, at []any
		for _, a := range s.Responses[i].All() {
			t := a.Thought
			if t == nil {
				r, rt, at = append(r, nil), append(rt, nil), append(at, nil)
				continue
			}
			split = true
			r = append(r, t.Reasoning)
			if t.Counted {
				rt, at = append(rt, t.ReasoningTokens), append(at, t.AnswerTokens)
			} else {
				rt, at = append(rt, nil), append(at, nil)
			}
		}
		reasoning, rtoks, atoks = append(reasoning, r), append(rtoks, rt), append(atoks, at)
	}
	if !split {
		return
	}
	line.Extra.Set(ReasoningKey, reasoning)
	line.Extra.Set(ReasoningTokensKey, rtoks)
	line.Extra.Set(AnswerTokensKey, atoks)
}

// lineThought is the reasoning a samples line (a shard's) logged for
// request i's answer j, nil when none (addThoughts' keys read back).
// Found is not logged: the reasoning holds the think-end token exactly
// when it is more than the answer's stripped leading whitespace (a
// whitespace-only think-end token aside).
func lineThought(s *Sample, i, j int) *tasks.Thought {
	r, ok := s.Extra.Get(ReasoningKey)
	if !ok {
		return nil
	}
	text, ok := nested(r, i, j).(string)
	if !ok {
		return nil
	}
	t := &tasks.Thought{Reasoning: text, Found: strings.TrimFunc(text, py.IsSpace) != ""}
	rt, _ := s.Extra.Get(ReasoningTokensKey)
	at, _ := s.Extra.Get(AnswerTokensKey)
	rn, rok := jsonInt(nested(rt, i, j))
	an, aok := jsonInt(nested(at, i, j))
	if rok && aok {
		t.ReasoningTokens, t.AnswerTokens, t.Counted = rn, an, true
	}
	return t
}

// nested is v[i][j] of a decoded JSON list of lists, nil when absent.
func nested(v any, i, j int) any {
	outer, _ := v.([]any)
	if i >= len(outer) {
		return nil
	}
	inner, _ := outer[i].([]any)
	if j >= len(inner) {
		return nil
	}
	return inner[j]
}

// jsonInt is a decoded JSON integer (json.Number as py.ParseJSON reads
// numbers; a Go int when built in memory).
func jsonInt(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		return int(n), err == nil
	case int:
		return x, true
	}
	return 0, false
}
