package goeval

import (
	"context"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/tasks"
)

// passRunner is a CodeRunner that passes every program and counts them.
type passRunner struct{ programs int }

func (r *passRunner) RunPrograms(_ context.Context, programs []string) ([]string, error) {
	r.programs += len(programs)
	out := make([]string, len(programs))
	for i := range out {
		out[i] = "passed"
	}
	return out, nil
}

// TestConfirmRunUnsafeCode: through the library, a task that executes the
// generated code (lm-eval's humaneval) is refused without
// Options.Task.ConfirmRunUnsafeCode, before the model sees any request,
// with lm-eval's one line; with it, the programs go to the CodeRunner.
func TestConfirmRunUnsafeCode(t *testing.T) {
	ix := tasks.NewIndex()
	if _, _, err := ix.IncludePath("parity/reason/tasks"); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	opts := Options{Tasks: []string{"humaneval"}, Index: ix, Task: tasks.DefaultOptions(), BootstrapIters: -1}
	opts.Task.DataDir, opts.Task.Limit = "parity/reason/data", 2
	runner := &passRunner{}
	opts.Task.CodeRunner = runner

	model := lmtest.New()
	_, err := Evaluate(context.Background(), model, opts)
	if err == nil || !errs.IsBadInput(err) || err.Error() != tasks.UnsafeRefusal("humaneval") {
		t.Fatalf("without ConfirmRunUnsafeCode: err = %v, want the refusal", err)
	}
	if model.Requests != 0 || runner.programs != 0 {
		t.Fatalf("refused, yet the model saw %d requests and the runner %d programs", model.Requests, runner.programs)
	}

	opts.Task.ConfirmRunUnsafeCode = true
	res, err := Evaluate(context.Background(), model, opts)
	if err != nil {
		t.Fatalf("with ConfirmRunUnsafeCode: %v", err)
	}
	if runner.programs != 2 {
		t.Fatalf("the runner got %d programs, want 2", runner.programs)
	}
	if m, ok := res.Tasks[0].Metric("pass@1", "create_test"); !ok || m.Value != 1 {
		t.Fatalf("pass@1 = %+v (found %v), want 1 from the passing runner; metrics %+v", m, ok, res.Tasks[0].Metrics)
	}
}
