package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// TestCodeTasksGoHooks: humaneval and mbpp built from lm-eval's own task
// files (parity/reason/tasks), with Python on and the code confirmed, take
// their metric (code_eval's pass@k), custom filter and few-shot samples
// from goeval's Go hooks: each program reaches the task's CodeRunner
// (goeval's sandbox in a run), and no Python worker starts — were the
// metric answered in the worker, code_eval would run the programs outside
// the sandbox.
func TestCodeTasksGoHooks(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "python-started")
	trap := filepath.Join(dir, "python3")
	if err := os.WriteFile(trap, []byte("#!/bin/sh\necho started >"+mark+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ix := NewIndex()
	ix.SetPython(trap, 0)
	ix.ConfirmRunUnsafeCode(true)
	defer ix.Close()
	if _, _, err := ix.IncludePath(testutil.Path(t, "parity/reason/tasks")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"humaneval", "humaneval_instruct", "humaneval_plus", "mbpp", "mbpp_instruct", "mbpp_plus"} {
		t.Run(name, func(t *testing.T) {
			s, err := ix.spec(name)
			if err != nil {
				t.Fatal(err)
			}
			if !s.UnsafeCode() {
				t.Error("not an unsafe_code task")
			}
			r := &fakeRunner{}
			opts := DefaultOptions()
			opts.DataDir = testutil.Path(t, "parity/reason/data")
			opts.ConfirmRunUnsafeCode, opts.CodeRunner, opts.Limit = true, r, 1
			insts, err := s.Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			answer := "    return ok\n"
			if strings.HasSuffix(name, "_instruct") { // after the gen_prefix's ```
				answer = "\ndef f():\n    return ok\n```\n"
			}
			res, err := s.Process(&insts[0], []Response{{Text: answer}})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.programs) != 1 || !strings.Contains(r.programs[0], "return ok") {
				t.Errorf("the CodeRunner ran %q; want the one answer's program", r.programs)
			}
			for _, sr := range res {
				if len(sr.Metrics) == 0 {
					t.Errorf("no metrics: %+v", sr)
				}
			}
		})
	}
	if n := ix.PythonStarts(); n != 0 {
		t.Errorf("%d Python workers started; Go hooks answer every function of the code tasks", n)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the Python interpreter was run")
	}
}
