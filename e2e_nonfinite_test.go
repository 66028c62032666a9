package goeval_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

// divergedScale multiplies the LM head of the diverged model: its logits
// reach the thousands, where exp overflows unless the max is subtracted.
const divergedScale = 3000

// synthScaled writes a tiny llama with the shared tokenizer; scale and nan
// are synth's LogitScale and NaNWeights.
func synthScaled(t *testing.T, dir, tok, name string, scale float64, nan bool) *engine.Engine {
	t.Helper()
	out := filepath.Join(dir, name)
	o := synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Intermediate: 64,
		Vocab: 300, Seed: 1, TokenizerDir: tok, Out: out, LogitScale: scale, NaNWeights: nan}
	if err := synth.Model(o); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(out, engine.Options{Device: "cpu", DType: "float32", BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// vocabLogProbs scores every token of the vocabulary as a one-token
// continuation of ctx.
func vocabLogProbs(t *testing.T, e *engine.Engine, ctx []int32) []engine.Score {
	t.Helper()
	v := e.Config().VocabSize
	ctxs, conts := make([][]int32, v), make([][]int32, v)
	for i := range ctxs {
		ctxs[i], conts[i] = ctx, []int32{int32(i)}
	}
	res, err := e.ScoreIDs(context.Background(), ctxs, conts, false)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDivergedLogitsMatchFloat64 checks the diverged model's log-probs
// against a float64 log-softmax computed here. The diverged model's logits
// are the base model's ×3000 (only the untied LM head differs), and the
// base model's log-probs over the whole vocabulary are its logits up to a
// constant, so the reference for token v is 3000·lp(v) − logsumexp(3000·lp).
// A log-softmax without the max subtracted gives −Inf or NaN here.
func TestDivergedLogitsMatchFloat64(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "tok")
	if _, err := synth.Tokenizer(tok, 300); err != nil {
		t.Fatal(err)
	}
	base := synthScaled(t, dir, tok, "base", 0, false)
	diverged := synthScaled(t, dir, tok, "diverged", divergedScale, false)
	for _, ctx := range [][]int32{{5, 6, 7}, {40, 41, 42, 43, 44, 45}} {
		lpA, lpB := vocabLogProbs(t, base, ctx), vocabLogProbs(t, diverged, ctx)
		m, best := math.Inf(-1), 0
		for v, s := range lpA {
			if x := divergedScale * s.LogProb; x > m {
				m, best = x, v
			}
		}
		sum := 0.0
		for _, s := range lpA {
			sum += math.Exp(divergedScale*s.LogProb - m)
		}
		lse := m + math.Log(sum)
		worst := 0.0
		for v, s := range lpB {
			want := divergedScale*lpA[v].LogProb - lse
			got := s.LogProb
			if math.IsNaN(got) || math.IsInf(got, 0) || got > 0 || math.Abs(got-want) > 1e-2+1e-5*math.Abs(want) {
				t.Fatalf("context %v token %d: diverged log-prob %v, float64 reference %v", ctx, v, got, want)
			}
			worst = math.Max(worst, math.Abs(got-want))
			if s.IsGreedy != (v == best) {
				t.Errorf("context %v token %d: is_greedy %v, reference argmax %d", ctx, v, s.IsGreedy, best)
			}
		}
		if lpB[best].LogProb < -1e-3 {
			t.Errorf("context %v: argmax token log-prob %v, want ≈ 0", ctx, lpB[best].LogProb)
		}
		t.Logf("context %v: max |diverged − float64 reference| = %.3g over %d tokens", ctx, worst, len(lpB))
	}
}

// TestDivergedAndBrokenEvaluate runs arc_easy end to end: the diverged
// model's log-probs are finite and ≤ 0 and its per-doc acc is the argmax
// of them; the NaN-weight model's requests are all counted non-finite and
// its accuracy is NaN, not a plausible number.
func TestDivergedAndBrokenEvaluate(t *testing.T) {
	dir := t.TempDir()
	tok, data := filepath.Join(dir, "tok"), filepath.Join(dir, "data")
	if _, err := synth.Tokenizer(tok, 300); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Data("arc_easy", data, synth.DataOptions{N: 8, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	opts := goeval.Options{Tasks: []string{"arc_easy"}, Task: tasks.DefaultOptions(), BootstrapIters: 10, LogSamples: true}
	opts.Task.DataDir = data
	res, err := goeval.Evaluate(context.Background(), synthScaled(t, dir, tok, "diverged", divergedScale, false), opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Tasks[0]
	if tr.NonFinite != 0 || len(tr.Samples) == 0 {
		t.Fatalf("diverged: %d non-finite requests, %d samples", tr.NonFinite, len(tr.Samples))
	}
	for _, s := range tr.Samples {
		lls := make([]float64, len(s.Responses))
		for i, r := range s.Responses {
			if math.IsNaN(r.LogProb) || math.IsInf(r.LogProb, 0) || r.LogProb > 0 {
				t.Fatalf("diverged doc %d choice %d: log-prob %v", s.DocID, i, r.LogProb)
			}
			lls[i] = r.LogProb
		}
		gold, ok := s.Target.(int)
		acc, _ := s.Values["acc"].Float()
		if !ok || acc != map[bool]float64{true: 1, false: 0}[metrics.Argmax(lls) == gold] {
			t.Errorf("diverged doc %d: acc %v, lls %v, gold %v", s.DocID, acc, lls, s.Target)
		}
	}
	res, err = goeval.Evaluate(context.Background(), synthScaled(t, dir, tok, "broken", 0, true), opts)
	if err != nil {
		t.Fatal(err)
	}
	tr = res.Tasks[0]
	acc, _ := tr.Metric("acc", "none")
	if tr.NonFinite == 0 || tr.NonFinite != tr.LogProbRequests || !math.IsNaN(acc.Value) || len(res.NonFiniteWarnings()) != 1 {
		t.Errorf("broken: %d of %d non-finite, acc %v, warnings %q", tr.NonFinite, tr.LogProbRequests, acc.Value, res.NonFiniteWarnings())
	}
}
