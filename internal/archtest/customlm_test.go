package archtest

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/tasks"
)

// lengthLM is the whole of a custom model a Go training loop would write:
// it prefers longer continuations and does nothing else.
type lengthLM struct{}

func (lengthLM) Loglikelihood(_ context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	out := make([]lm.LoglikelihoodResult, len(reqs))
	for i, r := range reqs {
		n := utf8.RuneCountInString(r.Continuation)
		out[i] = lm.LoglikelihoodResult{LogProb: -10 + float64(n)/100, NumTokens: n}
	}
	return out, nil
}

func (lengthLM) LoglikelihoodRolling(context.Context, []lm.RollingRequest) ([]lm.RollingResult, error) {
	return nil, errors.New("not a rolling model")
}

func (lengthLM) GenerateUntil(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return nil, errors.New("not a generating model")
}

// TestCustomLMLight evaluates arc_easy with lengthLM on three committed
// documents: the longest answer is right in q1 and q2 and wrong in q3, so
// acc is 2/3 — and the test binary links no GoMLX, XLA or plotting package.
func TestCustomLMLight(t *testing.T) {
	opts := goeval.Options{Tasks: []string{"arc_easy"}, Task: tasks.DefaultOptions(), BootstrapIters: -1}
	opts.Task.DataDir = "testdata"
	res, err := goeval.Evaluate(context.Background(), lengthLM{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	acc, ok := res.Tasks[0].Metric("acc", "none")
	if !ok || acc.N != 3 || acc.Value != 2.0/3 {
		t.Fatalf("arc_easy acc = %+v (found %v), want 2/3 over 3 documents", acc, ok)
	}
	out, err := exec.Command("go", "list", "-deps", "-test", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps -test: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if strings.HasPrefix(d, h) {
				t.Errorf("this test's binary links %s: a custom LM must not pull in the engine", d)
			}
		}
	}
}
