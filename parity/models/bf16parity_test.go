package hfparity_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

const bf16GoldenDir = "../../models/testdata/hf-bf16"

// derivation is a golden folder's derivation.json (bf16_goldens.py): the
// rounding model's per-token standard deviation of transformers' bf16
// log-probs around the f32 ones (root mean square and maximum over the
// scored tokens), and the measured differences.
type derivation struct {
	ModelSigmaRMS float64 `json:"model_sigma_rms"`
	ModelSigmaMax float64 `json:"model_sigma_max"`
	MeasuredRMS   float64 `json:"measured_rms"`
	MeasuredMax   float64 `json:"measured_max"`
}

// Bounds against transformers' bf16 run, from the rounding model of
// bf16_goldens.py (σ: its per-token standard deviation, u = 2^-8, R = 43
// roundings each reaching the logits with gain 1). The model overestimates
// the spread (measured root mean square 0.69–0.70 × the model's: a
// sub-block's rounding reaches the residual stream scaled by that block's
// share of it, below 1), so it bounds the root mean square with
// bf16RMSFactor (1.8× margin), and each token with bf16TokenSigmas × the
// largest σ: the maximum of ~350 Gaussian draws is ~3.4σ, measured maxima
// are 2.1–2.7 × the largest σ (1.9× margin). And the root mean square is
// at least bf16RMSFloor of the model's: a bf16 reference that is not
// bf16-rounded (f32 noise, ~1e-6) compares nothing.
const (
	bf16TokenSigmas = 5
	bf16RMSFactor   = 1.25
	bf16RMSFloor    = 0.25
)

// TestTransformersBF16Goldens: goeval's weight-only bf16 (--dtype bfloat16
// on the pure-Go backend: bf16 weights, f32 activations) against
// transformers on the same bf16 checkpoint, token by token. Against
// transformers in f32 it must agree to maxAbsDelta (1e-4, the f32 parity
// bound): the weights are widened exactly and everything else is f32.
// Against transformers in bf16 (activations rounded to bf16 at every op)
// it differs by that rounding, which bf16_goldens.py's model predicts:
// each token and the root mean square are bounded from the prediction.
func TestTransformersBF16Goldens(t *testing.T) {
	entries, err := os.ReadDir(bf16GoldenDir)
	if err != nil || len(entries) < 2 {
		t.Fatalf("bf16 goldens not found in %s (%v): run parity/models/make_bf16_goldens.sh", bf16GoldenDir, err)
	}
	bin := buildGoeval(t)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			dir := filepath.Join(bf16GoldenDir, e.Name())
			var d derivation
			b, err := os.ReadFile(filepath.Join(dir, "derivation.json"))
			if err != nil || json.Unmarshal(b, &d) != nil || d.ModelSigmaMax <= 0 {
				t.Fatalf("%s/derivation.json: %v", dir, err)
			}
			got := bf16TokenLogProbs(t, synth(t, bin, dir), testutil.ReadJSONL[request](t, filepath.Join(dir, "requests.jsonl")))
			f32 := tokenLogProbs(testutil.ReadJSONL[reference](t, filepath.Join(dir, "reference_f32.jsonl")))
			bf16 := tokenLogProbs(testutil.ReadJSONL[reference](t, filepath.Join(dir, "reference_bf16.jsonl")))
			if len(got) != len(f32) || len(got) != len(bf16) {
				t.Fatalf("%d tokens scored, references have %d (f32) and %d (bf16)", len(got), len(f32), len(bf16))
			}
			bound := bf16TokenSigmas * d.ModelSigmaMax
			var worst32, worst, sq float64
			for i, g := range got {
				d32, d16 := math.Abs(g-f32[i]), math.Abs(g-bf16[i])
				worst32, worst, sq = max(worst32, d32), max(worst, d16), sq+d16*d16
				if !(d32 <= maxAbsDelta) {
					t.Errorf("token %d: %.8f, transformers f32 %.8f: |Δ| %.3g > %g", i, g, f32[i], d32, maxAbsDelta)
				}
				if !(d16 <= bound) {
					t.Errorf("token %d: %.6f, transformers bf16 %.6f: |Δ| %.4f > %.4f (%d × σ %.4f)", i, g, bf16[i], d16, bound, bf16TokenSigmas, d.ModelSigmaMax)
				}
			}
			rms := math.Sqrt(sq / float64(len(got)))
			if rms > bf16RMSFactor*d.ModelSigmaRMS || rms < bf16RMSFloor*d.ModelSigmaRMS {
				t.Errorf("rms |Δ| against transformers bf16 %.4f, outside [%g, %g] × the model's %.4f", rms, bf16RMSFloor, bf16RMSFactor, d.ModelSigmaRMS)
			}
			t.Logf("%d tokens: max |Δ| vs f32 %.2g; vs bf16 max %.4f (bound %.4f), rms %.4f (model %.4f, golden measured %.4f)",
				len(got), worst32, worst, bound, rms, d.ModelSigmaRMS, d.MeasuredRMS)
		})
	}
}

// bf16TokenLogProbs scores every continuation token of reqs on its own
// (context plus the continuation before it) with weight-only bf16 on the
// pure-Go backend, in order.
func bf16TokenLogProbs(t *testing.T, model string, reqs []request) []float64 {
	t.Helper()
	m, err := engine.Open(model, engine.Options{Device: "cpu", DType: "bfloat16"})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	defer m.Close()
	var in []lm.LoglikelihoodRequest
	for _, r := range reqs {
		for j := range r.ContinuationIDs {
			ctx := append(slices.Clone(r.ContextIDs), r.ContinuationIDs[:j]...)
			in = append(in, lm.LoglikelihoodRequest{ContextIDs: ctx, ContinuationIDs: r.ContinuationIDs[j : j+1]})
		}
	}
	res, err := m.Loglikelihood(context.Background(), in)
	if err != nil {
		t.Fatalf("Loglikelihood: %v", err)
	}
	out := make([]float64, len(res))
	for i, r := range res {
		out[i] = r.LogProb
	}
	return out
}

// tokenLogProbs lists the references' per-token log-probs in order.
func tokenLogProbs(refs []reference) []float64 {
	var out []float64
	for _, r := range refs {
		out = append(out, r.TokenLogProbs...)
	}
	return out
}
