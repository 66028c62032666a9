package goeval_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/engine"
)

const reasonDir = "parity/reason/testdata"

// TestReasonLMEval evaluates parity/reason/reason.py's runs in-process —
// sampled answers with repeats on the tiny synthesized model M — and
// compares the results and samples files with the goldens: lm-eval's own
// filters (take_first, take_first_k, majority_vote, regex), metrics and
// aggregation over goeval's recorded answers. So goeval's answers must be
// the recorded ones (its sampling is deterministic per seed), and everything
// lm-eval computes from them must be what goeval computes.
func TestReasonLMEval(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(reasonDir, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Synth map[string]string `json:"synth"`
		Runs  []e2eRun          `json:"runs"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var m *engine.Engine
	for _, run := range cfg.Runs {
		if m == nil {
			m = openE2EModel(t, filepath.Join(dir, "M"), "M", cfg.Synth)
			defer m.Close()
		}
		run.goldens = reasonDir
		t.Run(run.Name, func(t *testing.T) {
			runE2E(t, m, filepath.Join(dir, "M"), "", filepath.Join(dir, "out_"+run.Name), run)
		})
	}
}
