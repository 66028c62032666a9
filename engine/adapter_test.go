package engine

import (
	"context"
	"math"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
)

// loraLogProbs scores the tiny-qwen2-lora requests with e.
func loraLogProbs(t *testing.T, e *Engine, reqs []testutil.Request) []float64 {
	t.Helper()
	var c, k [][]int32
	for _, r := range reqs {
		c, k = append(c, r.ContextIDs), append(k, r.ContinuationIDs)
	}
	res, err := e.ScoreIDs(context.Background(), c, k, false)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(res))
	for i, r := range res {
		out[i] = r.LogProb
	}
	return out
}

// maxAbsDiff is max |a[i] − b[i]|.
func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestAdapterModes: the tiny-qwen2 LoRA fixture through the engine, merged
// at load and separate in the graph, against llama.cpp's reference (1e-4,
// llama.cpp applying the adapter at run time), against each other and the
// pre-merged tiny-qwen2-merged checkpoint (1e-5; its own llama.cpp reference
// is of peft's merge); a WithAdapter(-1) view on the same weights reproduces
// the base model's own reference.
func TestAdapterModes(t *testing.T) {
	base, lora, premerged := fixturemodel.Model(t, fixturemodel.Base), fixturemodel.AdapterDir(t), fixturemodel.Model(t, fixturemodel.Merged)
	n := 6 // of 40: the pure-Go backend is slow, and -v runs them all
	if testing.Verbose() {
		n = 40
	}
	reqs := testutil.Requests(t, fixturemodel.Adapter)
	ref := testutil.References(t, fixturemodel.Adapter, len(reqs))[:n]
	reqs = reqs[:n]
	want := make([]float64, len(ref))
	for i, r := range ref {
		want[i] = r.LogProbSum
	}
	run := func(dir string, o Options) (*Engine, []float64) {
		e, err := Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e, loraLogProbs(t, e, reqs)
	}
	_, merged := run(base, Options{Adapters: []string{lora}})
	sepEngine, separate := run(base, Options{Adapters: []string{lora}, AdapterMode: AdapterSeparate})
	_, pre := run(premerged, Options{})
	t.Logf("vs llama.cpp: merged %.3g, separate %.3g; merged vs separate %.3g, merged vs pre-merged %.3g, separate vs pre-merged %.3g",
		maxAbsDiff(merged, want), maxAbsDiff(separate, want), maxAbsDiff(merged, separate), maxAbsDiff(merged, pre), maxAbsDiff(separate, pre))
	if maxAbsDiff(merged, want) > 1e-4 || maxAbsDiff(separate, want) > 1e-4 {
		t.Error("adapter log-probs differ from llama.cpp's by more than 1e-4")
	}
	if maxAbsDiff(merged, separate) > 1e-5 || maxAbsDiff(merged, pre) > 1e-5 || maxAbsDiff(separate, pre) > 1e-5 {
		t.Error("merged, separate and pre-merged differ by more than 1e-5")
	}
	baseView, err := sepEngine.WithAdapter(-1)
	if err != nil {
		t.Fatal(err)
	}
	defer baseView.Close()
	baseReqs := testutil.Requests(t, fixturemodel.Base)
	baseRef := testutil.References(t, fixturemodel.Base, len(baseReqs))
	baseReqs = baseReqs[:n]
	got := loraLogProbs(t, baseView, baseReqs)
	d := 0.0
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-baseRef[i].LogProbSum))
	}
	t.Logf("WithAdapter(-1) vs tiny-qwen2 reference: %.3g", d)
	if d > 1e-4 {
		t.Errorf("base view differs from the base reference by %g", d)
	}
	if _, err := sepEngine.WithAdapter(1); !errs.IsBadInput(err) {
		t.Errorf("WithAdapter(1) with one adapter: err = %v, want bad input", err)
	}
	if _, err := Open(base, Options{Adapters: []string{lora, lora}}); !errs.IsBadInput(err) {
		t.Errorf("two merged adapters: err = %v, want bad input", err)
	}
}

// TestSafeGoSpec: pure-Go specs get ops_sequential unless they choose an
// ops_ mode; XLA specs are left alone.
func TestSafeGoSpec(t *testing.T) {
	for in, want := range map[string]string{
		"go": "go:ops_sequential", "go:dotgeneral_small": "go:dotgeneral_small,ops_sequential",
		"go:ops_parallel": "go:ops_parallel", "xla:/p/plugin.so": "xla:/p/plugin.so",
	} {
		if got := safeGoSpec(in); got != want {
			t.Errorf("safeGoSpec(%q) = %q, want %q", in, got, want)
		}
	}
}
