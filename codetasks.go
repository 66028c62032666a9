package goeval

import (
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// codeTasks settles the evaluation's tasks that execute the generated
// code (unsafe_code: true) before any other work: refused without
// Options.Task.ConfirmRunUnsafeCode (lm-eval's confirm_run_unsafe_code),
// else sharing one CodeRunner — Options.Task.CodeRunner, or goeval's
// sandbox made once here.
func (ev *evaluation) codeTasks(opts *Options) error {
	for _, r := range ev.runs {
		u, ok := r.task.(interface{ UnsafeCode() bool })
		if !ok || !u.UnsafeCode() {
			continue
		}
		if !opts.Task.ConfirmRunUnsafeCode {
			return errs.BadInputf("%s", tasks.UnsafeRefusal(r.task.Name()))
		}
		if opts.Task.CodeRunner == nil {
			cr, err := tasks.NewSandboxRunner("")
			if err != nil {
				return err
			}
			opts.Task.CodeRunner = cr
		}
	}
	return nil
}
