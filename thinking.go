package goeval

import (
	"slices"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/tasks"
)

// generated is one generation (of a request with stop strings until) as
// the tasks see it: with th on, the answer only (lm-eval's
// think_end_token: an id cuts the generation's ids, a text its text), the
// reasoning kept in Thought for the samples file and the token counts.
func generated(g lm.GenerateResult, th lm.Thinking, until []string) tasks.Response {
	r := tasks.Response{Text: g.Text, NumTokens: len(g.IDs)}
	if !th.On() {
		return r
	}
	reasoning, answer, found := th.Split(g.Text)
	if th.ByID && th.Decode != nil && len(g.IDs) > 0 {
		reasoning, answer, found = th.SplitIDs(g.IDs, until)
	}
	r.Text = answer
	t := &tasks.Thought{Reasoning: reasoning, Found: found}
	t.ReasoningTokens, t.AnswerTokens, t.Counted = th.Count(g.IDs)
	r.Thought = t
	return r
}

// checkThinking refuses loglikelihood requests with enable_thinking=True,
// as lm-eval's HFLM.loglikelihood does (loglikelihood_rolling is not
// checked there either).
func checkThinking(th lm.Thinking, runs []*taskRun, refs []reqRef) error {
	if !th.Enabled || len(refs) == 0 {
		return nil
	}
	var names []string
	for _, ref := range refs {
		if n := runs[ref.run].task.Name(); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return errs.BadInputf("enable_thinking=True is not compatible with loglikelihood tasks (as in lm-eval): use generative tasks only; triggered by task(s): %s", strings.Join(names, ", "))
}

// ThinkingCounts sums a task's reasoning split (Options.Thinking) over its
// generations, repeats included. lm-eval reports none of it.
type ThinkingCounts struct {
	Generations int // generations split
	Found       int // generations where the think-end token occurs
	// Counted generations have token counts (see tasks.Thought.Counted);
	// ReasoningTokens and AnswerTokens sum over them.
	Counted                       int
	ReasoningTokens, AnswerTokens int
}

// thinkingCounts sums the task's responses; nil when none was split.
func thinkingCounts(resps [][]tasks.Response) *ThinkingCounts {
	var c ThinkingCounts
	for _, inst := range resps {
		for _, resp := range inst {
			for _, a := range resp.All() {
				t := a.Thought
				if t == nil {
					continue
				}
				c.Generations++
				if t.Found {
					c.Found++
				}
				if t.Counted {
					c.Counted++
					c.ReasoningTokens += t.ReasoningTokens
					c.AnswerTokens += t.AnswerTokens
				}
			}
		}
	}
	if c.Generations == 0 {
		return nil
	}
	return &c
}
