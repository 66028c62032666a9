package goeval

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

// synthData writes tiny synthetic datasets for the named tasks.
func synthData(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if _, err := synth.Data(n, dir, synth.DataOptions{N: 12, Seed: 1}); err != nil {
			t.Fatalf("synth %s: %v", n, err)
		}
	}
	return dir
}

func evalOpts(dir string, names ...string) Options {
	o := Options{Tasks: names, Task: tasks.DefaultOptions(), BootstrapIters: 200, LogSamples: true}
	o.Task.DataDir = dir
	return o
}

func TestEvaluateStructure(t *testing.T) {
	dir := synthData(t, "arc_easy", "gsm8k", "wikitext")
	lm := lmtest.New()
	res, err := Evaluate(context.Background(), lm, evalOpts(dir, "arc_easy", "gsm8k", "wikitext"))
	if err != nil {
		t.Fatal(err)
	}
	if lm.Calls["loglikelihood"] != 1 || lm.Calls["generate"] != 1 || lm.Calls["rolling"] != 1 {
		t.Errorf("want one LM call per kind, got %v", lm.Calls)
	}
	want := map[string][]string{
		"arc_easy": {"acc,none", "acc_norm,none"},
		"gsm8k":    {"exact_match,strict-match", "exact_match,flexible-extract"},
		"wikitext": {"word_perplexity,none", "byte_perplexity,none", "bits_per_byte,none"},
	}
	for _, tr := range res.Tasks {
		keys := want[tr.Name]
		if len(tr.Metrics) != len(keys) {
			t.Fatalf("%s metrics %+v, want %v", tr.Name, tr.Metrics, keys)
		}
		for i, m := range tr.Metrics {
			if m.Key() != keys[i] {
				t.Errorf("%s metric %d = %s, want %s", tr.Name, i, m.Key(), keys[i])
			}
			if math.IsNaN(m.Value) || m.N != tr.SampleLen || tr.SampleLen == 0 {
				t.Errorf("%s %s: value %v n %d sample_len %d", tr.Name, m.Key(), m.Value, m.N, tr.SampleLen)
			}
		}
		if tr.Name == "wikitext" && tr.Metrics[0].StderrOK {
			t.Error("word_perplexity stderr must be N/A")
		}
		if tr.Name == "arc_easy" && !tr.Metrics[0].StderrOK {
			t.Error("acc stderr missing")
		}
		if nf := len(tr.Samples); nf != tr.SampleLen*len(keys)/len(uniqueNames(keys)) && tr.Name != "gsm8k" {
			t.Errorf("%s: %d sample rows for %d docs", tr.Name, nf, tr.SampleLen)
		}
	}
}

func uniqueNames(keys []string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k[:len(k)-len(",none")]] = true
	}
	return m
}

// shuffledLM reverses every call's requests before scoring them, so a
// result that depended on request order would change.
type shuffledLM struct{ inner lm.LM }

func (s shuffledLM) Loglikelihood(ctx context.Context, r []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	rev := append([]lm.LoglikelihoodRequest(nil), r...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	out, err := s.inner.Loglikelihood(ctx, rev)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}
func (s shuffledLM) LoglikelihoodRolling(ctx context.Context, r []lm.RollingRequest) ([]lm.RollingResult, error) {
	return s.inner.LoglikelihoodRolling(ctx, r)
}
func (s shuffledLM) GenerateUntil(ctx context.Context, r []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return s.inner.GenerateUntil(ctx, r)
}

func TestEvaluateOrderAndChunkIndependent(t *testing.T) {
	dir := synthData(t, "hellaswag", "boolq")
	a, err := Evaluate(context.Background(), lmtest.New(), evalOpts(dir, "hellaswag", "boolq"))
	if err != nil {
		t.Fatal(err)
	}
	o := evalOpts(dir, "boolq", "hellaswag") // other task order
	var reports int
	o.Progress, o.ProgressChunk = func(Progress) { reports++ }, 7 // chunked calls
	b, err := Evaluate(context.Background(), shuffledLM{lmtest.New()}, o)
	if err != nil {
		t.Fatal(err)
	}
	if reports < 3 {
		t.Errorf("only %d progress reports", reports)
	}
	for _, ta := range a.Tasks {
		for _, tb := range b.Tasks {
			if ta.Name != tb.Name {
				continue
			}
			for i := range ta.Metrics {
				if ta.Metrics[i] != tb.Metrics[i] {
					t.Errorf("%s: %+v vs %+v", ta.Name, ta.Metrics[i], tb.Metrics[i])
				}
			}
		}
	}
}

func TestEvaluateGroups(t *testing.T) {
	ts, _, err := tasks.NewIndex().Expand([]string{"mmlu_stem"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range ts {
		names = append(names, x.Name())
	}
	dir := synthData(t, names...)
	res, err := Evaluate(context.Background(), lmtest.New(), evalOpts(dir, "mmlu_stem"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || res.Groups[0].Name != "mmlu_stem" {
		t.Fatalf("groups = %+v", res.Groups)
	}
	g := res.Groups[0]
	// Recompute the micro average from the leaves.
	num, n := 0.0, 0
	for _, tr := range res.Tasks {
		m, _ := tr.Metric("acc", "none")
		num += m.Value * float64(tr.SampleLen)
		n += tr.SampleLen
	}
	gm := g.Metrics[0]
	if gm.Key() != "acc,none" || math.Abs(gm.Value-num/float64(n)) > 1e-12 || g.SampleLen != n || !gm.StderrOK {
		t.Errorf("group %+v, want acc %v over %d", gm, num/float64(n), n)
	}
	if len(res.Tasks) != 19 {
		t.Errorf("mmlu_stem has %d tasks, want 19", len(res.Tasks))
	}
}

func TestEvaluateErrors(t *testing.T) {
	if _, err := Evaluate(context.Background(), lmtest.New(), evalOpts(t.TempDir(), "hellaswagg")); err == nil {
		t.Error("unknown task accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := synthData(t, "boolq")
	if _, err := Evaluate(ctx, lmtest.New(), evalOpts(dir, "boolq")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}
