package engine

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

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

// TestOpenWithAdapter checks Open and WithAdapter on the LoRA fixture: the
// base view scores as the plain checkpoint, the adapter view as the
// pre-merged one (≤ 1e-5), both keep the tokenizer, and closing the model
// closes the views still open.
func TestOpenWithAdapter(t *testing.T) {
	reqs := []lm.LoglikelihoodRequest{
		{Context: "The capital of France is", Continuation: " Paris"},
		{Context: "Question: 2+2?\nAnswer:", Continuation: " four, of course"},
	}
	plain := func(dir string) []float64 {
		m, err := Open(fixturemodel.Model(t, dir), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		return scoreWith(t, m, reqs)
	}
	wantBase, wantMerged := plain("tiny-qwen2"), plain("tiny-qwen2-merged")

	m, err := Open(fixturemodel.Model(t, fixturemodel.Base), Options{
		Adapters: []string{fixturemodel.AdapterDir(t)}, AdapterMode: AdapterSeparate})
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
	if base.Tokenizer() != m.Tokenizer() || m.Tokenizer() == nil || lora.Tokenizer() != m.Tokenizer() || base.Adapter() != -1 || lora.Adapter() != 0 {
		t.Fatalf("views: tokenizer shared %v/%v, adapters %d/%d", base.Tokenizer() == m.Tokenizer(), lora.Tokenizer() == m.Tokenizer(), base.Adapter(), lora.Adapter())
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

// TestOpenInfo checks Open's tokenizer, Info (lm-eval's results-file facts:
// EOT is EOS, max_length from config.json) and the chat
// template, and that a missing checkpoint's error names the directory.
func TestOpenInfo(t *testing.T) {
	dir := fixturemodel.Model(t, fixturemodel.Base)
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tok := e.Tokenizer()
	if tok == nil {
		t.Fatal("Open loaded no tokenizer")
	}
	info := e.Info()
	eos, _ := tok.EOS()
	if info.EOS == nil || info.EOS.ID != eos || info.EOT != info.EOS {
		t.Errorf("info %+v: want EOS %d as EOT", info, eos)
	}
	if _, ok := tok.BOS(); ok != (info.BOS != nil) {
		t.Errorf("BOS %+v, tokenizer has one: %v", info.BOS, ok)
	}
	if info.MaxLength != e.Config().MaxPositionEmbeddings {
		t.Errorf("max length %d, want config's %d", info.MaxLength, e.Config().MaxPositionEmbeddings)
	}
	out, err := e.ApplyChatTemplate([]lm.ChatMessage{{Role: "user", Content: "hi"}}, true)
	if err != nil || out == "" {
		t.Errorf("chat template: %q, %v", out, err)
	}
	missing := filepath.Join(t.TempDir(), "none")
	if _, err := Open(missing, Options{}); err == nil || !strings.Contains(err.Error(), "model "+missing+":") {
		t.Errorf("missing checkpoint: %v", err)
	}
}
