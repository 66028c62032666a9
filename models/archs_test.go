package models

import (
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// TestArchsMatchTransformers scores the tiny random Phi, Phi-3, Gemma 2 and
// Gemma 3 checkpoints written by parity/archs/arch_golden.py and compares
// with transformers' log-probs (CPU, f32): max |Δ logprob_sum| ≤ 1e-4 and
// the same greedy flags.
func TestArchsMatchTransformers(t *testing.T) {
	dir := filepath.Join(testdata, "archs")
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(dir, "requests.jsonl"))
	for _, name := range append([]string{"phi", "phi3", "phi35", "gemma2", "gemma3", "gemma3mm"}, moeGoldens...) {
		t.Run(name, func(t *testing.T) {
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, name, "golden.jsonl"))
			tm := loadTestModel(t, filepath.Join(dir, name), nil)
			got := tm.score(t, reqs, -1)
			d := maxDiff(got, want)
			t.Logf("%s (%s): max |Δ logprob_sum| = %.3g over %d requests", name, tm.model.Config().Arch(), d, len(reqs))
			if d > 1e-4 {
				t.Errorf("max |Δ| = %g > 1e-4", d)
			}
		})
	}
}
