// Package lmtest is a deterministic lm.LM for tests (lm-eval's DummyLM
// analogue): every answer is a pure function of its own request, so results
// never depend on batching or request order.
package lmtest

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode/utf8"

	"github.com/goeval/goeval/lm"
)

// LM is the fake model. Calls counts the method calls and Requests the
// requests seen, so tests can check the evaluator's call pattern.
type LM struct {
	Calls    map[string]int
	Requests int
}

// New returns a fake LM.
func New() *LM { return &LM{Calls: map[string]int{}} }

func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Loglikelihood returns -(len(cont) code points)·0.1 - (hash mod 1000)/250
// and IsGreedy on the hash's top bit.
func (l *LM) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	l.Calls["loglikelihood"]++
	l.Requests += len(reqs)
	out := make([]lm.LoglikelihoodResult, len(reqs))
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := hash(r.Context, r.Continuation)
		n := utf8.RuneCountInString(r.Continuation)
		out[i] = lm.LoglikelihoodResult{
			LogProb:   -float64(n)*0.1 - float64(h%1000)/250,
			IsGreedy:  h>>63 == 1,
			NumTokens: max(1, len(strings.Fields(r.Continuation))),
		}
	}
	return out, nil
}

// LoglikelihoodRolling returns -0.5 per byte minus a hash term.
func (l *LM) LoglikelihoodRolling(ctx context.Context, reqs []lm.RollingRequest) ([]lm.RollingResult, error) {
	l.Calls["rolling"]++
	l.Requests += len(reqs)
	out := make([]lm.RollingResult, len(reqs))
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = lm.RollingResult{LogProb: -0.5*float64(len(r.Text)) - float64(hash(r.Text)%100)/10,
			NumTokens: len(strings.Fields(r.Text)) + 1}
	}
	return out, nil
}

// GenerateUntil answers with a short deterministic text that sometimes
// contains a "#### N" answer line and sometimes a bare number, cut at the
// first stop string like a real engine.
func (l *LM) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	l.Calls["generate"]++
	l.Requests += len(reqs)
	out := make([]lm.GenerateResult, len(reqs))
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := hash(r.Context)
		var text string
		switch h % 3 {
		case 0:
			text = fmt.Sprintf(" The result is %d.\n#### %d", h%20, h%20)
		case 1:
			text = fmt.Sprintf(" I think %d", h%50)
		default:
			text = " no idea. Question: next"
		}
		reason := "eos"
		for _, u := range r.Until {
			if j := strings.Index(text, u); u != "" && j >= 0 {
				text, reason = text[:j], "until"
			}
		}
		out[i] = lm.GenerateResult{Text: text, StopReason: reason, IDs: make([]int32, len(strings.Fields(text)))}
	}
	return out, nil
}

// Template is the fake LM's chat template as a results file records it.
const Template = "goeval fake LM: <role>content</role> per message"

// ChatTemplate implements lm.ChatTemplater (Template).
func (l *LM) ChatTemplate() string { return Template }

// ApplyChatTemplate implements lm.ChatTemplater: <role>content</role> per
// message; without a generation prompt the final message is left open
// (continued).
func (l *LM) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "<%s>%s", m.Role, m.Content)
		if addGenerationPrompt || i < len(msgs)-1 {
			fmt.Fprintf(&b, "</%s>", m.Role)
		}
	}
	return b.String(), nil
}
