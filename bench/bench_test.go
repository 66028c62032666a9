package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/synth"
)

// tinyModel writes a small random llama checkpoint and returns an Opener
// for it.
func tinyModel(t *testing.T, batch int) Opener {
	t.Helper()
	dir := t.TempDir()
	err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1,
		Intermediate: 64, Vocab: 128, RopeTheta: 10000, MaxPositions: 256, BOS: 1, EOS: 2, Seed: 1, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	return func() (*engine.Engine, error) { return engine.Open(dir, engine.Options{BatchSize: batch}) }
}

func TestScore(t *testing.T) {
	o := ScoreOptions{Requests: 3, Context: 5, Continuation: 2, Seed: 1, Model: "m", DType: "float32"}
	profiled := false
	o.Profile = func() (func(), error) { return func() { profiled = true }, nil }
	r, err := Score(context.Background(), tinyModel(t, 2), o)
	if err != nil {
		t.Fatal(err)
	}
	// each request feeds its context and continuation but the last id
	if r.Tokens != 3*(5+2-1) || r.Requests != 3 || r.Batch != 2 || r.Graphs < 1 || r.Parameters == 0 || !profiled {
		t.Errorf("report %+v (profiled %v)", r, profiled)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `^bench score: model=m backend=\S+ device=cpu dtype=float32 batch=2 bucket=B\d+×T\d+×K\d+ requests=3 tokens=18 time=[\d.]+s tokens/s=[\d.]+ gflops=[\d.]+ peak_gflops=[\d.]+ pct_peak=[\d.]+ peak_kernel=\S+ threads=\d+ cpu=\S+ compile_ms=[\d.]+ graphs=\d+ load_s=[\d.]+ peak_rss_mb=\d+ weights_f32_mb=\d+ matmul=gemm-\S+\n$`
	if !regexp.MustCompile(want).Match(buf.Bytes()) {
		t.Errorf("text %q does not match %s", buf.String(), want)
	}
	if r.Peak.GFLOPS <= 0 || r.FLOPs <= 0 || r.PercentOfPeak() <= 0 {
		t.Errorf("FLOPs %g, peak %+v, %% of peak %g", r.FLOPs, r.Peak, r.PercentOfPeak())
	}
	if _, err := Score(context.Background(), nil, ScoreOptions{}); !errs.IsBadInput(err) {
		t.Errorf("empty options: err %v, want bad input", err)
	}
}

// TestScoreFLOPs counts a tiny model by hand: hidden 4, intermediate 6,
// 2 heads and 1 KV head of size 2, 3 layers, vocab 10; one request of 2
// context ids and 1 continuation id (T = 2 input tokens, 1 scored).
func TestScoreFLOPs(t *testing.T) {
	cfg := &models.Config{HiddenSize: 4, IntermediateSize: 6, NumAttentionHeads: 2, NumKeyValueHeads: 1, HeadDim: 2,
		NumHiddenLayers: 3, VocabSize: 10}
	reqs := []lm.LoglikelihoodRequest{{ContextIDs: []int32{1, 2}, ContinuationIDs: []int32{3}}}
	// per token and layer: 2·(4·4 q + 2·4·2 k,v + 4·4 o + 3·4·6 mlp) = 240;
	// attention 4·4·(2·3/2) = 48; 3·(240·2 + 48) = 1584; head 2·4·10 = 80.
	if got := ScoreFLOPs(cfg, reqs); got != 1664 {
		t.Errorf("ScoreFLOPs = %g, want 1664", got)
	}
}

func TestGenerate(t *testing.T) {
	var streamed []int
	o := GenerateOptions{Batches: []int{1, 2}, PromptLen: 4, Steps: 3, Seed: 1,
		OnRow: func(r GenerateRow) { streamed = append(streamed, r.Batch) }}
	r, err := Generate(context.Background(), tinyModel(t, 2), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 || len(streamed) != 2 || r.Rows[1].Batch != 2 || r.Rows[1].Steps != 3 || r.Rows[1].DecodeTokensPerSecond <= 0 {
		t.Fatalf("rows %+v, streamed %v", r.Rows, streamed)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `^(backend=.+ batch=\d prompt_len=4 steps=3 prefill_tok_per_s=[\d.]+ decode_tok_per_s=[\d.]+ decode_ms_per_step=[\d.]+ compile_ms=\d+ wall_s=[\d.]+\n){2}$`
	if !regexp.MustCompile(want).Match(buf.Bytes()) {
		t.Errorf("text %q does not match %s", buf.String(), want)
	}
	if _, err := Generate(context.Background(), nil, GenerateOptions{Batches: []int{0}, PromptLen: 1, Steps: 2}); !errs.IsBadInput(err) {
		t.Errorf("batch 0: err %v, want bad input", err)
	}
}

func TestTokenize(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Tokenizer(dir, 300); err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(corpus, []byte("{\"text\": \"hello world\"}\n{\"text\": \"ab\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Tokenize(context.Background(), TokenizeOptions{Tokenizer: dir, Corpus: corpus, MinTime: time.Millisecond, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Texts != 2 || r.Bytes != 13 || r.SingleThreadMBps <= 0 || r.BatchMBps <= 0 {
		t.Errorf("report %+v", r)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "tokenizer="+dir+" texts=2 bytes=13 single_thread_MBps=") || !strings.HasSuffix(buf.String(), " threads=2\n") {
		t.Errorf("text %q", buf.String())
	}
}

func TestReadCorpusErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	gz := filepath.Join(dir, "bad.jsonl.gz")
	os.WriteFile(bad, []byte("{\"text\": \"a\"}\n{\"x\": 1}\n"), 0o644)
	os.WriteFile(gz, []byte("this is not a gzip file"), 0o644)
	for name, want := range map[string]string{
		bad:                           "bad.jsonl line 2: want {\"text\": str}",
		gz:                            "bad.jsonl.gz: gzip: invalid header",
		filepath.Join(dir, "missing"): "no such file",
	} {
		_, err := ReadCorpus(name)
		if !errs.IsBadInput(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want bad input containing %q", name, err, want)
		}
	}
}
