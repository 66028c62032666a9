package goeval

import (
	"context"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
)

// TestEvaluateChatTemplateFromModel: with ApplyChatTemplate the prompts are
// rendered with the model's own template, and a model without one is
// refused with one bad-input line before any request is sent (never plain
// text in its place).
func TestEvaluateChatTemplateFromModel(t *testing.T) {
	dir := synthData(t, "arc_easy")
	opts := evalOpts(dir, "arc_easy")
	opts.Task.ApplyChatTemplate = true
	res, err := Evaluate(context.Background(), lmtest.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := firstContext(t, res); !strings.HasPrefix(got, "<user>") || !strings.HasSuffix(got, "</user>") {
		t.Errorf("first context %q, want the fake LM's template (<user>…</user>)", got)
	}
	fake := lmtest.New()
	plain := struct{ lm.LM }{fake} // the LM methods only: no chat template
	_, err = Evaluate(context.Background(), plain, opts)
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "the model has none") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a model without a chat template: %v, want one bad-input line", err)
	}
	if fake.Requests != 0 {
		t.Errorf("%d requests sent before the refusal", fake.Requests)
	}
}
