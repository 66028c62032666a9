package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/lm"
)

// fixturesDir finds ../shared/fixtures from the repository root or
// $GOEVAL_FIXTURES; a missing directory fails the test (never skips).
func fixturesDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("GOEVAL_FIXTURES"); d != "" {
		return d
	}
	d, err := filepath.Abs("../../shared/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("reference fixtures not found at %s (set GOEVAL_FIXTURES): %v", d, err)
	}
	return d
}

// fixtureRequest is one line of requests.jsonl.
type fixtureRequest struct {
	ContextIDs      []int32 `json:"context_ids"`
	ContinuationIDs []int32 `json:"continuation_ids"`
}

// fixtureReference is one line of reference.jsonl (llama.cpp).
type fixtureReference struct {
	LogProbSum    float64   `json:"logprob_sum"`
	IsGreedy      bool      `json:"is_greedy"`
	TokenLogProbs []float64 `json:"token_logprobs"`
}

// readJSONL decodes every line of path into a T.
func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// fixtureModels lists the fixture folders that hold a model.
func fixtureModels(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(fixturesDir(t), "*", "config.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixture models (config.json) under %s", fixturesDir(t))
	}
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	return dirs
}

// TestFixturesMatchLlamaCpp: every reference log-prob sum to 1e-4 and the
// same greedy flags, on the pure-Go backend in f32.
func TestFixturesMatchLlamaCpp(t *testing.T) {
	for _, dir := range fixtureModels(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			reqs := readJSONL[fixtureRequest](t, filepath.Join(dir, "requests.jsonl"))
			refs := readJSONL[fixtureReference](t, filepath.Join(dir, "reference.jsonl"))
			if len(reqs) != len(refs) || len(reqs) == 0 {
				t.Fatalf("%d requests, %d references", len(reqs), len(refs))
			}
			e, err := Open(dir, Options{Device: "cpu", BatchSize: 8})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ll := make([]lm.LoglikelihoodRequest, len(reqs))
			for i, r := range reqs {
				ll[i] = lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
			}
			got, err := e.Loglikelihood(context.Background(), ll)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, g := range got {
				d := math.Abs(g.LogProb - refs[i].LogProbSum)
				worst = max(worst, d)
				if d > 1e-4 || g.IsGreedy != refs[i].IsGreedy || g.NumTokens != len(reqs[i].ContinuationIDs) {
					t.Errorf("request %d: got (%.6f, greedy %v, n %d), llama.cpp (%.6f, greedy %v, n %d)",
						i, g.LogProb, g.IsGreedy, g.NumTokens, refs[i].LogProbSum, refs[i].IsGreedy, len(reqs[i].ContinuationIDs))
				}
			}
			t.Logf("%d requests, max |Δ logprob| = %.2e, %+v", len(got), worst, e.Stats())
		})
	}
}
