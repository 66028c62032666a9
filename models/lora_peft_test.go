package models

import (
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/safetensors"
)

// peftAdapters are the adapters parity/lora/peft_golden.py wrote.
var peftAdapters = []string{"all-linear-r8", "rslora-r8", "qv-lm-head"}

// TestLoRAPeftGoldens scores the tiny llama with each peft adapter, merged
// at load and applied separately in the graph (all adapters loaded at once
// on one copy of the base weights), against PeftModel's log-probs, and
// checks merged ≡ separate.
func TestLoRAPeftGoldens(t *testing.T) {
	dir := filepath.Join(testdata, "lora")
	baseDir := filepath.Join(dir, "tiny-llama")
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(dir, "requests.jsonl"))
	base, err := safetensors.Open(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	shared := loadTestModel(t, baseDir, nil)
	baseRun := shared.score(t, reqs, -1)
	if d := maxDiff(baseRun, testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden_base.jsonl"))); d > 1e-4 {
		t.Errorf("base: max |Δ| = %g > 1e-4", d)
	}
	for i, name := range peftAdapters {
		a, err := LoadAdapter(filepath.Join(dir, name), base)
		if err != nil {
			t.Fatal(err)
		}
		if err := LoadAdapterVariables(shared.ctx, shared.backend, a, i, dtypes.Float32); err != nil {
			t.Fatal(err)
		}
		want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden_"+name+".jsonl"))
		merged := loadTestModel(t, baseDir, a.MergeInto).score(t, reqs, -1)
		separate := shared.score(t, reqs, i)
		dm, ds, dms := maxDiff(merged, want), maxDiff(separate, want), maxDiffRuns(merged, separate)
		t.Logf("%s: merged vs peft %.3g, separate vs peft %.3g, merged vs separate %.3g (per token); base vs adapter %.3g",
			name, dm, ds, dms, maxDiffRuns(baseRun, merged))
		if dm > 1e-4 || ds > 1e-4 || dms > 1e-5 {
			t.Errorf("%s: over tolerance (1e-4 vs peft, 1e-5 merged vs separate)", name)
		}
		if maxDiffRuns(baseRun, merged) < 1e-2 {
			t.Errorf("%s: the adapter barely changes the model; the test would not catch a dropped adapter", name)
		}
	}
}
