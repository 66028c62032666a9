package goeval_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const leaderboardDir = "parity/leaderboard/testdata"

// TestLeaderboardLMEval evaluates the Open LLM Leaderboard v2 task files
// (lm-eval's, copied under parity/leaderboard/testdata/tasks) on model L
// and the synthetic documents in the leaderboard datasets' schemas, with
// the chat template and multi-turn few-shot, and compares the results and
// samples files with lm-eval's (parity/leaderboard/leaderboard.py's
// goldens). "leaderboard_go" (every subgroup but ifeval) runs goeval's Go
// hooks with no Python, as do "truthfulqa_go" (truthfulqa_mc1 and mc2) and
// "truthfulqa_gen_go" (truthfulqa_gen: BLEU and ROUGE, tasks/hooks_truthfulqa*.go);
// "leaderboard" (the whole group) runs the hooks in
// the .venv Python worker and is skipped where that Python lacks lm-eval
// or ifeval's packages (langdetect, nltk, immutabledict; PYTHONPATH may
// name them).
func TestLeaderboardLMEval(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(leaderboardDir, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Synth map[string]string `json:"synth_leaderboard"`
		Runs  []e2eRun          `json:"runs"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := openE2EModel(t, filepath.Join(dir, "L"), "L", leaderboardDir, cfg.Synth)
	defer m.Close()
	for _, run := range cfg.Runs {
		run.goldens = leaderboardDir
		t.Run(run.Name, func(t *testing.T) {
			if run.Python {
				run.pythonPath = leaderboardPython(t)
			}
			runE2E(t, m, filepath.Join(dir, "L"), "", filepath.Join(dir, "out_"+run.Name), run)
		})
	}
}

// leaderboardPython is the .venv Python when it imports lm-eval and
// ifeval's packages; the test is skipped otherwise.
func leaderboardPython(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs(".venv/bin/python")
	if exec.Command(p, "-c", "import lm_eval, langdetect, nltk, immutabledict").Run() != nil {
		t.Skip("no .venv Python with lm-eval and langdetect, nltk, immutabledict (leaderboard_ifeval's; PYTHONPATH may name them)")
	}
	return p
}
