package goeval_test

import (
	"context"
	"math"
	"testing"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/lm"
)

// scoreWith returns lm's log-likelihoods of reqs.
func scoreWith(t *testing.T, model lm.LM, reqs []lm.LoglikelihoodRequest) []float64 {
	t.Helper()
	res, err := model.Loglikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(res))
	for i, r := range res {
		out[i] = r.LogProb
	}
	return out
}

// TestModelWithAdapter checks Model.WithAdapter on the LoRA fixture: the
// base view scores as the plain checkpoint, the adapter view as the
// pre-merged one (≤ 1e-5), both keep the tokenizer, and closing the model
// closes the views still open.
func TestModelWithAdapter(t *testing.T) {
	reqs := []lm.LoglikelihoodRequest{
		{Context: "The capital of France is", Continuation: " Paris"},
		{Context: "Question: 2+2?\nAnswer:", Continuation: " four, of course"},
	}
	plain := func(name string) []float64 {
		m, err := goeval.OpenModel(fixturemodel.Model(t, name), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		return scoreWith(t, m, reqs)
	}
	wantBase, wantMerged := plain("tiny-qwen2"), plain("tiny-qwen2-merged")

	m, err := goeval.OpenModel(fixturemodel.Model(t, fixturemodel.Base), engine.Options{
		Adapters: []string{fixturemodel.AdapterDir(t)}, AdapterMode: engine.AdapterSeparate})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base, err := m.WithAdapter(-1)
	if err != nil {
		t.Fatal(err)
	}
	lora, err := m.WithAdapter(0)
	if err != nil {
		t.Fatal(err)
	}
	if base.Tokenizer != m.Tokenizer || lora.Tokenizer != m.Tokenizer || base.Adapter() != -1 || lora.Adapter() != 0 {
		t.Fatalf("views: tokenizer shared %v/%v, adapters %d/%d", base.Tokenizer == m.Tokenizer, lora.Tokenizer == m.Tokenizer, base.Adapter(), lora.Adapter())
	}
	if _, err := m.WithAdapter(1); err == nil {
		t.Error("WithAdapter(1) with one adapter accepted")
	}
	gotBase, gotLora := scoreWith(t, base, reqs), scoreWith(t, lora, reqs)
	for i := range reqs {
		if d := math.Abs(gotBase[i] - wantBase[i]); d > 1e-5 {
			t.Errorf("request %d: base view %v, plain checkpoint %v", i, gotBase[i], wantBase[i])
		}
		if d := math.Abs(gotLora[i] - wantMerged[i]); d > 1e-5 {
			t.Errorf("request %d: adapter view %v, merged checkpoint %v", i, gotLora[i], wantMerged[i])
		}
		if math.Abs(gotLora[i]-gotBase[i]) < 1e-4 {
			t.Errorf("request %d: adapter changed nothing (%v)", i, gotLora[i])
		}
	}
	if err := base.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil { // closes lora first, base again
		t.Fatal(err)
	}
	if err := lora.Close(); err != nil { // already closed: harmless
		t.Fatal(err)
	}
	if n := m.NumParameters(); n != 0 {
		t.Errorf("closed model still holds %d parameters", n)
	}
}
