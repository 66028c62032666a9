package hfparity_test

import (
	"context"
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

// TestTransformersBF16Goldens: goeval's weight-only bf16 (--dtype bfloat16
// on the pure-Go backend: bf16 weights, f32 activations) on checkpoints
// stored in bf16 (a tied LM head among them), token by token, against
// transformers in float32 on the same weights: they must agree to
// maxAbsDelta (1e-4, the float32 bound), since the weights are widened
// exactly and everything else is float32. Against transformers in
// bfloat16 (activations rounded too) the dtype goldens hold it
// (TestTransformersDTypeGoldens, boundK).
func TestTransformersBF16Goldens(t *testing.T) {
	entries, err := os.ReadDir(bf16GoldenDir)
	if err != nil || len(entries) < 2 {
		t.Fatalf("bf16 goldens not found in %s (%v): run parity/models/make_bf16_goldens.sh", bf16GoldenDir, err)
	}
	bin := buildGoeval(t)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			dir := filepath.Join(bf16GoldenDir, e.Name())
			got := bf16TokenLogProbs(t, synth(t, bin, dir), testutil.ReadJSONL[request](t, filepath.Join(dir, "requests.jsonl")))
			f32 := tokenLogProbs(testutil.ReadJSONL[reference](t, filepath.Join(dir, "reference_f32.jsonl")))
			if len(got) != len(f32) || len(got) == 0 {
				t.Fatalf("%d tokens scored, the reference has %d", len(got), len(f32))
			}
			worst := 0.0
			for i, g := range got {
				d := math.Abs(g - f32[i])
				worst = max(worst, d)
				if !(d <= maxAbsDelta) {
					t.Errorf("token %d: %.8f, transformers f32 %.8f: |Δ| %.3g > %g", i, g, f32[i], d, maxAbsDelta)
				}
			}
			t.Logf("%d tokens: max |Δ| against transformers f32 on the bf16 weights %.2g", len(got), worst)
		})
	}
}

// bf16TokenLogProbs scores every continuation token of reqs on its own
// (context plus the continuation before it) with weight-only bf16 on the
// pure-Go backend, in order.
func bf16TokenLogProbs(t *testing.T, model string, reqs []request) []float64 {
	t.Helper()
	// float32 log-softmax (lm-eval's softmax_dtype=float32): the reference
	// is transformers' float32 log-probs, not lm-eval's bf16 rounding.
	m, err := engine.Open(model, engine.Options{Device: "cpu", DType: "bfloat16", SoftmaxDType: "float32"})
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
