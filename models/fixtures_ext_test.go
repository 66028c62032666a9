package models_test

import (
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
)

// TestCheckTensorsFixtures: every fixture checkpoint (synthesized, and the
// merged one written from it) holds exactly the tensors its committed
// config.json implies.
func TestCheckTensorsFixtures(t *testing.T) {
	for _, name := range fixturemodel.Names() {
		dir := fixturemodel.Model(t, name)
		c, err := models.LoadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := safetensors.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := models.CheckTensors(c, s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if got, want := len(s.Names()), len(models.ExpectedTensors(c)); got != want {
			t.Errorf("%s: %d tensors, expected %d", name, got, want)
		}
		s.Close()
	}
}

// loraFixture opens tiny-qwen2 and loads the tiny-qwen2-lora adapter on it.
func loraFixture(t *testing.T) (base string, a *models.Adapter) {
	t.Helper()
	base = fixturemodel.Model(t, fixturemodel.Base)
	set, err := safetensors.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	a, err = models.LoadAdapter(fixturemodel.AdapterDir(t), set)
	if err != nil {
		t.Fatal(err)
	}
	return base, a
}

// TestLoRAQwen2FixtureMerged reproduces the tiny-qwen2-lora reference
// (llama.cpp applying the adapter at run time) with the adapter merged at
// load.
func TestLoRAQwen2FixtureMerged(t *testing.T) {
	base, a := loraFixture(t)
	tm := models.LoadTestModel(t, base, a.MergeInto)
	reqs := testutil.Requests(t, fixturemodel.Adapter)
	want := testutil.References(t, fixturemodel.Adapter, len(reqs))
	if !testing.Verbose() || testing.Short() {
		reqs = reqs[:6] // ~1 s per request on simplego; -v runs all 40
	}
	d := models.MaxDiff(tm.Score(t, reqs, -1), want)
	t.Logf("tiny-qwen2-lora merged vs llama.cpp: max |Δ logprob_sum| = %.3g over %d requests", d, len(reqs))
	if d > 1e-4 {
		t.Errorf("max |Δ| = %g > 1e-4", d)
	}
}

// TestLoRAQwen2MergedSeparatePreMerged checks merged at load ≡ separate in
// the graph ≡ the pre-merged tiny-qwen2-merged checkpoint, per token.
func TestLoRAQwen2MergedSeparatePreMerged(t *testing.T) {
	base, a := loraFixture(t)
	reqs := testutil.Requests(t, fixturemodel.Adapter)[:4]
	pre := models.LoadTestModel(t, fixturemodel.Model(t, fixturemodel.Merged), nil).Score(t, reqs, -1)
	merged := models.LoadTestModel(t, base, a.MergeInto).Score(t, reqs, -1)
	sep := models.LoadTestModel(t, base, nil)
	sep.AddAdapter(t, a)
	separate := sep.Score(t, reqs, 0)
	baseRun := sep.Score(t, reqs, -1)
	t.Logf("per-token max |Δ logprob|: merged vs pre-merged %.3g, separate vs pre-merged %.3g, merged vs separate %.3g; base vs adapter %.3g",
		models.MaxDiffRuns(merged, pre), models.MaxDiffRuns(separate, pre), models.MaxDiffRuns(merged, separate), models.MaxDiffRuns(baseRun, pre))
	for _, d := range []float64{models.MaxDiffRuns(merged, pre), models.MaxDiffRuns(separate, pre), models.MaxDiffRuns(merged, separate)} {
		if d > 1e-5 {
			t.Errorf("Δ = %g > 1e-5", d)
		}
	}
	if models.MaxDiffRuns(baseRun, pre) < 1e-3 {
		t.Error("the adapter does not change the fixture model; the test proves nothing")
	}
}
