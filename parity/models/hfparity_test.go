// Package hfparity_test checks goeval's engine against the Hugging Face
// transformers goldens in models/testdata/hf (written by make_goldens.sh):
// each model is re-synthesized from its synth_args.txt with the goeval
// binary, opened with engine.Open and scored on requests.jsonl.
//
// GOEVAL_HFPARITY_DEVICE, when set, is passed as engine.Options.Device
// (for example "xla-cpu", on the plugin `goeval setup` installs);
// otherwise the pure-Go backend runs (TestMain pins it).
package hfparity_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// maxAbsDelta is the largest |Δ logprob_sum| allowed against transformers
// (f32 engines that both use float64 log-softmax agree to ~1e-6 here).
const maxAbsDelta = 1e-4

const goldenDir = "../../models/testdata/hf"

type (
	request   = testutil.Request
	reference = testutil.Reference
)

// buildGoeval compiles ./cmd/goeval into a temporary folder, or returns
// $GOEVAL_BINARY when set (a machine without Go: scripts/gpu_check.sh).
func buildGoeval(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("GOEVAL_BINARY"); b != "" {
		abs, err := filepath.Abs(b)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	bin := filepath.Join(t.TempDir(), "goeval")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/goeval")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/goeval: %v\n%s", err, out)
	}
	return bin
}

// synth writes the model described by dir/synth_args.txt and returns its folder.
func synth(t *testing.T, bin, dir string) string {
	t.Helper()
	args, err := os.ReadFile(filepath.Join(dir, "synth_args.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "model")
	cmdArgs := append([]string{"synth", "model"}, strings.Fields(string(args))...)
	cmd := exec.Command(bin, append(cmdArgs, "--out", out)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goeval %s: %v\n%s", strings.Join(cmdArgs, " "), err, msg)
	}
	return out
}

func TestTransformersGoldens(t *testing.T) {
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatalf("goldens not found: %v", err)
	}
	if len(entries) < 5 {
		t.Fatalf("%s holds %d models, want ≥ 5 (llama, mistral-swa, qwen2, qwen3, llama3-rope)", goldenDir, len(entries))
	}
	bin := buildGoeval(t)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			checkModel(t, bin, filepath.Join(goldenDir, e.Name()))
		})
	}
}

// checkModel scores one golden folder's requests and compares them.
func checkModel(t *testing.T, bin, dir string) {
	reqs := testutil.ReadJSONL[request](t, filepath.Join(dir, "requests.jsonl"))
	refs := testutil.ReadJSONL[reference](t, filepath.Join(dir, "reference.jsonl"))
	if len(reqs) == 0 || len(reqs) != len(refs) {
		t.Fatalf("%s: %d requests, %d references", dir, len(reqs), len(refs))
	}
	m, err := engine.Open(synth(t, bin, dir), engine.Options{Device: os.Getenv("GOEVAL_HFPARITY_DEVICE")})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	defer m.Close()
	in := make([]lm.LoglikelihoodRequest, len(reqs))
	for i, r := range reqs {
		in[i] = lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
	}
	got, err := m.Loglikelihood(context.Background(), in)
	if err != nil {
		t.Fatalf("Loglikelihood: %v", err)
	}
	if len(got) != len(refs) {
		t.Fatalf("%d results for %d requests", len(got), len(refs))
	}
	worst := 0.0
	for i, ref := range refs {
		d := math.Abs(got[i].LogProb - ref.LogProbSum)
		worst = math.Max(worst, d)
		if !(d <= maxAbsDelta) {
			t.Errorf("request %d (ctx %d, cont %d tokens): logprob %.8f, transformers %.8f, |Δ| %.3g > %g",
				i+1, len(reqs[i].ContextIDs), len(reqs[i].ContinuationIDs), got[i].LogProb, ref.LogProbSum, d, maxAbsDelta)
		}
		if got[i].IsGreedy != ref.IsGreedy {
			t.Errorf("request %d: is_greedy %v, transformers %v", i+1, got[i].IsGreedy, ref.IsGreedy)
		}
		if got[i].NumTokens != len(ref.TokenLogProbs) {
			t.Errorf("request %d: %d tokens scored, want %d", i+1, got[i].NumTokens, len(ref.TokenLogProbs))
		}
	}
	t.Logf("%s: %d requests, max |Δ| %.3g", filepath.Base(dir), len(refs), worst)
}
