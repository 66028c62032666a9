package goeval

import (
	"context"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
)

// thinkLM answers every generation with a reasoning part holding a wrong
// "#### 99" line, then the think-end token (id 7) and the answer "#### 7".
type thinkLM struct{ *lmtest.LM }

const thinkRaw = "<think>\nMaybe it is\n#### 99\n</think>\n\nSo:\n#### 7"

func (l thinkLM) GenerateUntil(_ context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	for i := range reqs {
		out[i] = lm.GenerateResult{Text: thinkRaw, IDs: []int32{1, 2, 3, 7, 4, 5}, StopReason: "eos"}
	}
	return out, nil
}

// TestThinkingFiltersSeeAnswer evaluates gsm8k on answers whose reasoning
// holds another "#### N" line: with Options.Thinking the filters see the
// answer only (strict-match extracts 7), the samples keep the reasoning
// and the tokens are counted; without it the reasoning's 99 is extracted.
func TestThinkingFiltersSeeAnswer(t *testing.T) {
	dir := synthData(t, "gsm8k")
	opts := evalOpts(dir, "gsm8k")
	opts.Task.Limit = 3
	extracted := func(o Options) (*TaskResult, string) {
		res, err := Evaluate(context.Background(), thinkLM{lmtest.New()}, o)
		if err != nil {
			t.Fatal(err)
		}
		tr := res.Tasks[0]
		for _, s := range tr.Samples {
			if s.Filter == "strict-match" {
				return tr, s.FilteredResps.(string)
			}
		}
		t.Fatal("no strict-match sample")
		return nil, ""
	}
	if _, got := extracted(opts); got != "99" {
		t.Fatalf("without thinking: strict-match extracted %q, want the reasoning's 99", got)
	}
	opts.Thinking = lm.Thinking{EndToken: "</think>", EndTokenID: 7, HasID: true}
	tr, got := extracted(opts)
	if got != "7" {
		t.Fatalf("with thinking: strict-match extracted %q, want the answer's 7", got)
	}
	r := tr.Samples[0].Responses[0]
	if r.Text != "So:\n#### 7" || r.Thought == nil || r.Thought.Reasoning+r.Text != thinkRaw || !r.Thought.Found {
		t.Fatalf("response %q, thought %+v", r.Text, r.Thought)
	}
	want := ThinkingCounts{Generations: 3, Found: 3, Counted: 3, ReasoningTokens: 12, AnswerTokens: 6}
	if tr.Thinking == nil || *tr.Thinking != want {
		t.Fatalf("counts %+v, want %+v", tr.Thinking, want)
	}
}

// TestThinkingCutsIDs: with a think-end token given as an id (ByID) the
// answer is the generation's ids after the last id 7, decoded — here
// "#### 8", where the text after its "</think>" says 7 — as HFLM cuts ids
// for an integer think_end_token; the reasoning is the ids up to it.
func TestThinkingCutsIDs(t *testing.T) {
	dir := synthData(t, "gsm8k")
	opts := evalOpts(dir, "gsm8k")
	opts.Task.Limit = 2
	pieces := map[int32]string{1: "<think>", 2: "#### 99", 3: "\n", 4: "\n So:\n", 5: "#### 8"}
	decode := func(ids []int32) string {
		var s strings.Builder
		for _, id := range ids {
			s.WriteString(pieces[id]) // 7: special, skipped
		}
		return s.String()
	}
	opts.Thinking = lm.Thinking{EndToken: "</think>", EndTokenID: 7, HasID: true, ByID: true, Decode: decode}
	res, err := Evaluate(context.Background(), thinkLM{lmtest.New()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Tasks[0].Samples {
		r := s.Responses[0]
		if r.Text != "So:\n#### 8" || r.Thought == nil || r.Thought.Reasoning != "<think>#### 99\n" || !r.Thought.Found {
			t.Fatalf("response %q, thought %+v: want the ids after id 7 decoded", r.Text, r.Thought)
		}
		if s.Filter == "strict-match" && s.FilteredResps.(string) != "8" {
			t.Fatalf("strict-match extracted %q, want 8", s.FilteredResps)
		}
	}
}

// TestEnableThinkingRefusesLoglikelihood: lm-eval's HFLM refuses
// loglikelihood requests with enable_thinking=True.
func TestEnableThinkingRefusesLoglikelihood(t *testing.T) {
	dir := synthData(t, "arc_easy", "gsm8k")
	opts := evalOpts(dir, "arc_easy", "gsm8k")
	opts.Task.Limit = 2
	opts.Thinking = lm.Thinking{EndToken: "</think>", Enabled: true}
	_, err := Evaluate(context.Background(), lmtest.New(), opts)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), "triggered by task(s): arc_easy") {
		t.Fatalf("err = %v, want lm-eval's refusal naming arc_easy", err)
	}
	opts.Tasks = []string{"gsm8k"}
	if _, err := Evaluate(context.Background(), lmtest.New(), opts); err != nil {
		t.Fatalf("a generation task with enable_thinking: %v", err)
	}
}
