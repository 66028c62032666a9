package goeval

import (
	"context"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
)

// steppingLM answers like lmtest's LM and reports two steps per
// loglikelihood call, as the engine does after each forward pass: half the
// requests with 10 tokens computed per request, then all of them.
type steppingLM struct{ *lmtest.LM }

func (s steppingLM) Loglikelihood(ctx context.Context, r []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	n := len(r)
	lm.ReportStep(ctx, lm.Step{Done: 1, Total: 2, Requests: n / 2, Tokens: 10 * (n / 2)})
	lm.ReportStep(ctx, lm.Step{Done: 2, Total: 2, Requests: n, Tokens: 10 * n})
	return s.LM.Loglikelihood(ctx, r)
}

// TestProgressSteps: an LM's steps move the progress inside one call
// (Partial reports with the call's estimate and its computed tokens), and
// the call's end counts its requests once.
func TestProgressSteps(t *testing.T) {
	dir := synthData(t, "hellaswag")
	o := evalOpts(dir, "hellaswag")
	var got []Progress
	o.Progress = func(p Progress) { got = append(got, p) }
	if _, err := Evaluate(context.Background(), steppingLM{lmtest.New()}, o); err != nil {
		t.Fatal(err)
	}
	var partial []Progress
	last := got[len(got)-2] // the final one is the "score" stage
	for _, p := range got {
		if p.Partial {
			partial = append(partial, p)
		}
	}
	total := last.RequestsTotal
	if len(partial) != 2 || partial[0].RequestsDone != total/2 || partial[1].RequestsDone != total || partial[0].Computed != 10*(total/2) {
		t.Fatalf("partial reports %+v; want two, at %d and %d requests, %d tokens computed first", partial, total/2, total, 10*(total/2))
	}
	if last.Partial || last.RequestsDone != total || last.Computed != 10*total || last.TokensPerSec <= 0 {
		t.Errorf("end of the call: %+v; want %d requests done, %d computed, not partial", last, total, 10*total)
	}
}
