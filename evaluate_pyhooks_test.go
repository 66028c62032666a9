package goeval

import (
	"context"
	"os/exec"
	"testing"

	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/tasks"
)

// TestEvaluatePythonAggregation: a task file's Python aggregation
// (tasks/testdata/pyhooks_plain) gives the metric its value and, as in
// lm-eval, no stderr; the mean of Python's per-document values keeps
// its stderr.
func TestEvaluatePythonAggregation(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	opts := evalOpts("", "plain_mc")
	opts.Index = tasks.NewIndex()
	opts.Index.SetPython("python3", 0)
	defer opts.Index.Close()
	if _, _, err := opts.Index.IncludePath("tasks/testdata/pyhooks_plain"); err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(context.Background(), lmtest.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Metric{}
	for _, m := range res.Tasks[0].Metrics {
		got[m.Name] = m
	}
	if m := got["ll"]; m.Value != 3 || m.StderrOK || m.N != 3 {
		t.Errorf("ll (agg_count, Python): %+v, want 3 with no stderr", m)
	}
	if m := got["pair"]; m.Value < 0 || m.Value > 1 || m.StderrOK {
		t.Errorf("pair (agg_pair, Python): %+v, want a fraction with no stderr", m)
	}
	if m := got["acc"]; !m.StderrOK || m.N != 3 {
		t.Errorf("acc (mean of Python's bools): %+v, want a stderr", m)
	}
}
