package goeval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/jsonl"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/tasks"
)

const reasonDir = "parity/reason/testdata"

// TestReasonLMEval evaluates parity/reason/reason.py's runs in-process and
// compares the results and samples files with the goldens, lm-eval's own
// filters (take_first, take_first_k, majority_vote, regex, custom),
// metrics (exact_match, code_eval's pass@k) and aggregation over the same
// answers:
//   - sampled runs: goeval's answers on the tiny synthesized model M (with
//     repeats), which lm-eval replayed, so goeval's answers must also be the
//     recorded ones (its sampling is deterministic per seed);
//   - code runs: the committed answers of parity/reason/code_answers.json,
//     replayed to goeval here (replayLM) and run in goeval's sandbox, as
//     lm-eval ran them through code_eval.
func TestReasonLMEval(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(reasonDir, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Synth map[string]string `json:"synth"`
		Runs  []struct {
			e2eRun
			Replay string `json:"replay"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var m *engine.Engine
	for _, r := range cfg.Runs {
		if m == nil {
			m = openE2EModel(t, filepath.Join(dir, "M"), "M", reasonDir, cfg.Synth)
			defer m.Close()
		}
		run := r.e2eRun
		run.goldens = reasonDir
		switch {
		case r.Replay != "" && run.ThinkEndToken != "": // the raw answers: the golden's are cut
			run.model = replayRaw(t, m, filepath.Join(reasonDir, run.Name), r.Replay)
		case r.Replay != "":
			run.model = replayOf(t, m, filepath.Join(reasonDir, run.Name))
		}
		t.Run(run.Name, func(t *testing.T) {
			if run.ConfirmRunUnsafeCode {
				if _, err := tasks.NewSandboxRunner(""); err != nil {
					t.Skipf("no sandbox to run the code: %v", err)
				}
			}
			runE2E(t, m, filepath.Join(dir, "M"), "", filepath.Join(dir, "out_"+run.Name), run)
		})
	}
}

// replayLM answers generate requests with the answers of a golden run's
// samples files (the k-th request for a prompt gets its k-th answer: a
// task's repeats come in order) and everything else with the engine.
type replayLM struct {
	*engine.Engine
	mu      sync.Mutex
	answers map[string][]string // prompt → answers
	served  map[string]int
}

// replayOf reads the answers of the golden folder's samples files.
func replayOf(t *testing.T, m *engine.Engine, golden string) *replayLM {
	r := &replayLM{Engine: m, answers: map[string][]string{}, served: map[string]int{}}
	files, _ := filepath.Glob(filepath.Join(golden, "samples_*.jsonl"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		err = jsonl.Lines(fh, func(_ int, b []byte) error {
			var s struct {
				Arguments map[string]map[string]json.RawMessage `json:"arguments"`
				Resps     [][]string                            `json:"resps"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				return err
			}
			var prompt string
			if err := json.Unmarshal(s.Arguments["gen_args_0"]["arg_0"], &prompt); err != nil {
				return err
			}
			r.answers[prompt] = s.Resps[0]
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// replayRaw is replayOf with the answers of the replay file (task → doc
// id → answers per request, parity/reason/lmeval_replay.py's format)
// rather than the golden samples' (lm-eval logs the answers it cut at
// think_end_token); the golden samples give each document's prompt.
func replayRaw(t *testing.T, m *engine.Engine, golden, file string) *replayLM {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var answers map[string]map[string][][]string
	if err := json.Unmarshal(raw, &answers); err != nil {
		t.Fatal(err)
	}
	r := replayOf(t, m, golden)
	files, _ := filepath.Glob(filepath.Join(golden, "samples_*.jsonl"))
	for _, f := range files {
		task := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "samples_"), ".jsonl")
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		err = jsonl.Lines(fh, func(_ int, b []byte) error {
			var s struct {
				DocID     int                                   `json:"doc_id"`
				Arguments map[string]map[string]json.RawMessage `json:"arguments"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				return err
			}
			var prompt string
			if err := json.Unmarshal(s.Arguments["gen_args_0"]["arg_0"], &prompt); err != nil {
				return err
			}
			a := answers[task][strconv.Itoa(s.DocID)]
			if len(a) == 0 {
				return fmt.Errorf("%s has no answer for %s doc %d", file, task, s.DocID)
			}
			r.answers[prompt] = a[0]
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (r *replayLM) GenerateUntil(_ context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]lm.GenerateResult, len(reqs))
	for i, q := range reqs {
		a, k := r.answers[q.Context], r.served[q.Context]
		if k >= len(a) {
			return nil, fmt.Errorf("replay: no answer %d for prompt %q", k, q.Context)
		}
		r.served[q.Context]++
		out[i] = lm.GenerateResult{Text: a[k], StopReason: "until"}
	}
	return out, nil
}
