package report_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

// TestRunInfoRoundTrip: a RunInfo read back from a shard manifest writes
// the same results file, numbers spelled as before (8, not 8.0; 0.5, not
// 0.50), maps in their order.
func TestRunInfoRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Data("gsm8k", dir, synth.DataOptions{N: 12, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	o := goeval.Options{Tasks: []string{"gsm8k"}, Task: tasks.DefaultOptions(), BootstrapIters: 50}
	o.Task.DataDir, o.Task.Limit = dir, 3
	o.Task.GenKwargs = map[string]any{"max_gen_toks": 7, "temperature": 1.0, "do_sample": false}
	res, err := goeval.Evaluate(context.Background(), lmtest.New(), o)
	if err != nil {
		t.Fatal(err)
	}
	seed, multi := int64(7), true
	args, meta := py.NewMap[any](), py.NewMap[any]()
	args.Set("pretrained", "/m")
	args.Set("max_length", 512)
	args.Set("dtype", "float32")
	meta.Set("run", "nightly")
	meta.Set("ratio", 0.5)
	info := report.RunInfo{ModelName: "/m",
		Settings: report.RunSettings{Model: "/m", DType: "float32", BatchSize: 8, Device: "cpu", Limit: 3, BootstrapIters: 50,
			GenKwargs: o.Task.GenKwargs, Seeds: report.Seeds{Random: &seed, Fewshot: &seed}, ModelSHA: "abc",
			Checkpoint: true, NumParameters: 42080, ModelArgs: args},
		Prompt:     report.PromptSettings{SystemInstruction: "Be brief.", FewshotAsMultiturn: &multi},
		Model:      &lm.Info{EOS: &lm.Token{Text: "</s>", ID: 2}, MaxLength: 2048},
		Timing:     &report.Timing{ForwardPasses: 3, Forward: 1500 * time.Millisecond},
		DatasetSHA: map[string]string{"openai/gsm8k": "deadbeef"}, Metadata: meta, Backend: "gocpu:bf16=dot"}
	for _, batch := range []any{8, "auto"} {
		info.Settings.BatchSize = batch
		raw, err := report.EncodeRunInfo(info)
		if err != nil {
			t.Fatal(err)
		}
		back, err := report.DecodeRunInfo(raw)
		if err != nil {
			t.Fatal(err)
		}
		want, got := encodeRun(t, res, info), encodeRun(t, res, back)
		if !bytes.Equal(want, got) {
			t.Errorf("batch %v: the results file differs after the round trip:\n%s\n---\n%s", batch, want, got)
		}
	}
}

func encodeRun(t *testing.T, res *goeval.Results, info report.RunInfo) []byte {
	t.Helper()
	rep, _, err := report.FromResults(res, info)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
