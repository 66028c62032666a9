package report_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

func compactJSON(t *testing.T, b []byte) string {
	v, err := py.ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestReportConfigsAndCounts checks the configs entry (lm-eval's, with the
// effective num_fewshot, --gen-kwargs merged and model_args in metadata)
// and n-samples original (the split before --limit).
func TestReportConfigsAndCounts(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Data("gsm8k", dir, synth.DataOptions{N: 12, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	o := goeval.Options{Tasks: []string{"gsm8k"}, Task: tasks.DefaultOptions(), BootstrapIters: 200, LogSamples: true}
	o.Task.DataDir, o.Task.Limit, o.Task.NumFewshot = dir, 2, 1
	o.Task.GenKwargs = map[string]any{"max_gen_toks": 7}
	res, err := goeval.Evaluate(context.Background(), lmtest.New(), o)
	if err != nil {
		t.Fatal(err)
	}
	rs := report.RunSettings{Model: "/m", DType: "float32", BatchSize: 1, Device: "cpu", GenKwargs: o.Task.GenKwargs}
	rep, samples, err := report.FromResults(res, report.RunInfo{ModelName: "/m", Settings: rs})
	if err != nil {
		t.Fatal(err)
	}
	if ns, _ := rep.NSamples.Get("gsm8k"); ns.Original != 12 || ns.Effective != 2 {
		t.Errorf("n-samples = %+v, want original 12 effective 2", ns)
	}
	c, _ := rep.Configs.Get("gsm8k")
	b, _ := json.Marshal(c)
	v, _ := py.ParseJSON(b)
	cfg := v.(*py.Map[any])
	if k := cfg.Keys(); k[0] != "task" || k[1] != "dataset_path" {
		t.Errorf("config keys start %v", k[:2])
	}
	if n, _ := cfg.Get("num_fewshot"); n != json.Number("1") {
		t.Errorf("num_fewshot = %v, want 1", n)
	}
	gk, _ := cfg.Get("generation_kwargs")
	if g := gk.(*py.Map[any]); g.Keys()[0] != "until" || g.Keys()[len(g.Keys())-1] != "max_gen_toks" {
		t.Errorf("generation_kwargs keys %v", g.Keys())
	}
	meta, _ := cfg.Get("metadata")
	if m := meta.(*py.Map[any]); !slices.Equal(m.Keys(), []string{"version", "pretrained", "dtype", "config_source"}) ||
		m.Value("config_source") != "goeval:gsm8k" {
		t.Errorf("metadata keys %v (want lm-eval's order, config_source last)", m.Keys())
	}
	args := samples["gsm8k"][0].Arguments[0][1].(*py.Map[any])
	if k := args.Keys(); k[0] != "until" || k[len(k)-1] != "max_gen_toks" {
		t.Errorf("logged gen kwargs keys %v", k)
	}
	if ck, _ := rep.Config.Get("model_args"); ck.(*py.Map[any]).Keys()[0] != "pretrained" {
		t.Errorf("config.model_args %v", ck)
	}
}
