package main

import (
	"fmt"
	"os"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// planCode settles the run's code tasks (unsafe_code: true): refused
// without --confirm-run-unsafe-code, as lm-eval refuses them; with it,
// goeval's sandbox is made once (its probe runs now, before any model is
// opened) and its confinement printed.
func (p *runPlan) planCode(f *runFlags) error {
	ts, _, err := p.eval.Index.Expand(p.eval.Tasks)
	if err != nil {
		return err
	}
	for _, t := range ts {
		u, ok := t.(interface{ UnsafeCode() bool })
		if !ok || !u.UnsafeCode() {
			continue
		}
		if !f.confirmUnsafeCode {
			return errs.BadInputf("%s", tasks.UnsafeRefusal(t.Name()))
		}
		p.eval.Task.ConfirmRunUnsafeCode = true
		if p.eval.Task.CodeRunner == nil {
			r, err := tasks.NewSandboxRunner("")
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "code execution: %s\n", r.Enforced())
			p.eval.Task.CodeRunner = r
		}
	}
	return nil
}
