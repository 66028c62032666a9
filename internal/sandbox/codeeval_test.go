//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestCodeEvalStatuses: every program of testdata/code_eval.json gets the
// status Hugging Face evaluate's code_eval gave it (written by
// parity/reason/code_eval_status.py from code_eval's own
// check_correctness): passed, failed with the same exception text, timed
// out — code_eval's semantics (exec in a fresh namespace where __name__ is
// "builtins", output swallowed, stdin unreadable, its destructive
// functions None, a 3 s alarm the program may catch), in both modes.
func TestCodeEvalStatuses(t *testing.T) {
	raw, err := os.ReadFile("testdata/code_eval.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ Program, Status string }
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	programs := make([]string, len(rows))
	for i, r := range rows {
		programs[i] = r.Program
	}
	for mode, s := range sandboxes(t) {
		t.Run(mode, func(t *testing.T) {
			s.opts.Timeout = DefaultTimeout // code_eval's, as the statuses were made with
			res, err := s.Run(context.Background(), programs)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rows {
				if res[i].Status != r.Status {
					t.Errorf("%q: %q (%s), code_eval %q", r.Program, res[i].Status, res[i].Exit, r.Status)
				}
			}
		})
	}
}
