package goeval

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
)

// brokenLM is the fake LM with NaN log-likelihoods and a -Inf rolling
// log-prob for the first rolling request: a model whose numerics broke.
type brokenLM struct{ *lmtest.LM }

func (b brokenLM) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	out, err := b.LM.Loglikelihood(ctx, reqs)
	for i := range out {
		out[i].LogProb = math.NaN()
	}
	return out, err
}

func (b brokenLM) LoglikelihoodRolling(ctx context.Context, reqs []lm.RollingRequest) ([]lm.RollingResult, error) {
	out, err := b.LM.LoglikelihoodRolling(ctx, reqs)
	if len(out) > 0 {
		out[0].LogProb = math.Inf(-1)
	}
	return out, err
}

// TestNonFiniteLogProbs: NaN/Inf log-probs are counted per task, every
// metric over an affected document is NaN (argmax over NaNs would otherwise
// score a plausible accuracy), unaffected documents and tasks keep their
// values, and the warning names the task and the counts.
func TestNonFiniteLogProbs(t *testing.T) {
	dir := synthData(t, "arc_easy", "gsm8k", "wikitext")
	res, err := Evaluate(context.Background(), brokenLM{lmtest.New()}, evalOpts(dir, "arc_easy", "gsm8k", "wikitext"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*TaskResult{}
	for _, tr := range res.Tasks {
		byName[tr.Name] = tr
	}
	arc, gsm, wiki := byName["arc_easy"], byName["gsm8k"], byName["wikitext"]
	if arc.NonFinite == 0 || arc.NonFinite != arc.LogProbRequests {
		t.Errorf("arc_easy: %d of %d non-finite, want all", arc.NonFinite, arc.LogProbRequests)
	}
	for _, m := range arc.Metrics {
		if !math.IsNaN(m.Value) || !m.StderrOK || !math.IsNaN(m.Stderr) {
			t.Errorf("arc_easy %s = %v ± %v (ok %v), want NaN ± NaN", m.Key(), m.Value, m.Stderr, m.StderrOK)
		}
	}
	for _, s := range arc.Samples {
		for name, v := range s.Values {
			if x, _ := v.Float(); !math.IsNaN(x) {
				t.Errorf("arc_easy doc %d %s = %v, want NaN", s.DocID, name, x)
			}
		}
	}
	if gsm.NonFinite != 0 || gsm.LogProbRequests != 0 || math.IsNaN(gsm.Metrics[0].Value) {
		t.Errorf("gsm8k (generation only): non-finite %d of %d, %v", gsm.NonFinite, gsm.LogProbRequests, gsm.Metrics[0].Value)
	}
	if wiki.NonFinite != 1 || wiki.LogProbRequests != wiki.SampleLen {
		t.Errorf("wikitext: %d of %d non-finite, want 1 of %d", wiki.NonFinite, wiki.LogProbRequests, wiki.SampleLen)
	}
	for _, m := range wiki.Metrics {
		if !math.IsNaN(m.Value) {
			t.Errorf("wikitext %s = %v, want NaN", m.Key(), m.Value)
		}
	}
	p0, _ := wiki.Samples[0].Values["word_perplexity"].Pair()
	p1, _ := wiki.Samples[1].Values["word_perplexity"].Pair()
	if !math.IsNaN(p0[0]) || p0[1] <= 0 || math.IsNaN(p1[0]) || math.IsInf(p1[0], 0) {
		t.Errorf("wikitext word_perplexity pairs: doc 0 %v (want NaN, weight), doc 1 %v (want finite)", p0, p1)
	}
	if got := res.NonFiniteTasks(); strings.Join(got, ",") != "arc_easy,wikitext" {
		t.Errorf("NonFiniteTasks = %v", got)
	}
	w := res.NonFiniteWarnings()
	want := "warning: task arc_easy: 48 of 48 requests had non-finite log-probs (NaN/Inf logits) — the model's weights or activations are broken; its metrics are NaN"
	if len(w) != 2 || w[0] != want || !strings.HasPrefix(w[1], "warning: task wikitext: 1 of 12 requests") {
		t.Errorf("warnings:\n%s", strings.Join(w, "\n"))
	}
}

// TestNonFiniteFiniteModel: a healthy model has no non-finite requests and
// no warnings.
func TestNonFiniteFiniteModel(t *testing.T) {
	dir := synthData(t, "arc_easy")
	res, err := Evaluate(context.Background(), lmtest.New(), evalOpts(dir, "arc_easy"))
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Tasks[0]
	if tr.NonFinite != 0 || tr.LogProbRequests == 0 || len(res.NonFiniteWarnings()) != 0 || math.IsNaN(tr.Metrics[0].Value) {
		t.Errorf("healthy model: %d of %d non-finite, warnings %v, acc %v", tr.NonFinite, tr.LogProbRequests, res.NonFiniteWarnings(), tr.Metrics[0].Value)
	}
}
