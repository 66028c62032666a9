package tasks

import (
	"context"
	"fmt"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/sandbox"
)

// Tasks that execute the generated code (a task YAML's unsafe_code: true,
// as lm-eval's humaneval and mbpp): they run only with
// Options.ConfirmRunUnsafeCode (lm-eval's confirm_run_unsafe_code), and
// their metric hooks run each program through a CodeRunner — goeval's
// sandbox unless the caller gives another.

// CodeRunner runs generated programs for a code task's metrics.
type CodeRunner interface {
	// RunPrograms runs each program in a process of its own and reports
	// lm-eval code_eval's status of each: "passed", "failed: <the
	// exception>" or "timed out". An error is the runner's own failure.
	RunPrograms(ctx context.Context, programs []string) ([]string, error)
}

// sandboxRunner is goeval's sandbox as a CodeRunner.
type sandboxRunner struct{ sb *sandbox.Sandbox }

// NewSandboxRunner is goeval's sandbox (internal/sandbox) with its default
// limits and code_eval's 3 s timeout, Python from python (""
// = /usr/bin/python3, else python3 on PATH). Its Enforced method says how
// the programs are confined.
func NewSandboxRunner(python string) (interface {
	CodeRunner
	Enforced() string
}, error) {
	sb, err := sandbox.New(sandbox.Options{Python: python})
	if err != nil {
		return nil, errs.BadInputf("code execution: %v", err)
	}
	return sandboxRunner{sb}, nil
}

func (r sandboxRunner) RunPrograms(ctx context.Context, programs []string) ([]string, error) {
	res, err := r.sb.Run(ctx, programs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(res))
	for i, x := range res {
		out[i] = x.Status
	}
	return out, nil
}

// Enforced says how the sandbox confines the programs.
func (r sandboxRunner) Enforced() string { return r.sb.Python() + " in " + r.sb.Enforced() }

// UnsafeCode reports whether the task executes the generated code.
func (s *spec) UnsafeCode() bool { return s.unsafe }

// codeRunner checks that an unsafe task may run and picks its runner.
func (s *spec) codeRunner(opts Options) error {
	if !s.unsafe {
		return nil
	}
	if !opts.ConfirmRunUnsafeCode {
		return errs.BadInputf("%s", UnsafeRefusal(s.name))
	}
	s.code = opts.CodeRunner
	if s.code == nil {
		r, err := NewSandboxRunner("")
		if err != nil {
			return err
		}
		s.code = r
	}
	return nil
}

// UnsafeRefusal is the one line that refuses a code task without
// confirmation.
func UnsafeRefusal(task string) string {
	return fmt.Sprintf("task %s executes the generated code (unsafe_code: true): confirm with --confirm-run-unsafe-code "+
		"(lm-eval's --confirm_run_unsafe_code; Options.Task.ConfirmRunUnsafeCode) to run it in goeval's sandbox", task)
}
