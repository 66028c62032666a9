package tasks_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/tasks"
)

// plainPython is python3 for the hook tests whose Python needs only the
// standard library; they are skipped without one.
func plainPython(t *testing.T) *tasks.Index {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	ix := tasks.NewIndex()
	ix.SetPython("python3", 0)
	t.Cleanup(func() { ix.Close() })
	if _, _, err := ix.IncludePath("testdata/pyhooks_plain"); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestPlainPythonHooksMC: process_docs, doc_to_text, doc_to_choice,
// process_results and two aggregations of testdata/pyhooks_plain/hooks.py
// run in the worker, their values kept as Python has them.
func TestPlainPythonHooksMC(t *testing.T) {
	ix := plainPython(t)
	tk, err := ix.Get("plain_mc")
	if err != nil {
		t.Fatal(err)
	}
	insts, err := tk.Build(tasks.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 3 { // process_docs kept 3 of 4
		t.Fatalf("%d instances, want 3", len(insts))
	}
	r := insts[1].Requests[1]
	if r.Context != "Q: Colour of the sky?\nA:" || r.Continuation != " GREEN" {
		t.Errorf("request %q %q", r.Context, r.Continuation)
	}
	if got := insts[0].DocKeys[""]; len(got) != 6 || got[5] != "query" {
		t.Errorf("doc keys after process_docs %v, want the columns then query", got)
	}
	var pairs, lls []metrics.Value
	for i := range insts {
		resps := []tasks.Response{{LogProb: -1}, {LogProb: -2 + float64(i)}}
		res, err := tk.Process(&insts[i], resps)
		if err != nil {
			t.Fatal(err)
		}
		m := res["none"].Metrics
		want := []string{`true`, `[0, 0]`, `[-1.0, -2.0]`}
		if i == 2 {
			want = []string{`true`, `[1, 1]`, `[-1.0, 0.0]`}
		} else if i == 1 {
			want = []string{`true`, `[0, 0]`, `[-1.0, -1.0]`}
		}
		for j, name := range []string{"acc", "pair", "ll"} {
			if b, _ := py.JSON(m[name].Py(), false); string(b) != want[j] {
				t.Errorf("doc %d %s: %s, want %s", i, name, b, want[j])
			}
		}
		if f, ok := m["acc"].Float(); !ok || f != 1 {
			t.Errorf("doc %d: acc reads as %v %v, want 1 (a Python True)", i, f, ok)
		}
		pairs, lls = append(pairs, m["pair"]), append(lls, m["ll"])
	}
	agg := tk.(tasks.Aggregator)
	if v, err := agg.Aggregation("pair")(pairs); err != nil || v != 1 {
		t.Errorf("agg_pair: %v %v", v, err)
	}
	if v, err := agg.Aggregation("ll")(lls); err != nil || v != 3 {
		t.Errorf("agg_count: %v %v", v, err)
	}
	if agg.Aggregation("acc") != nil {
		t.Error("acc's aggregation is mean, not a Python function")
	}
}

// TestPlainPythonHooksGenerate: fewshot_config.samples, doc_to_text, a
// custom filter_fn, a Filter class with keyword arguments and a metric
// function.
func TestPlainPythonHooksGenerate(t *testing.T) {
	ix := plainPython(t)
	tk, err := ix.Get("plain_gen")
	if err != nil {
		t.Fatal(err)
	}
	insts, err := tk.Build(tasks.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 4 {
		t.Fatalf("%d instances", len(insts))
	}
	if got := insts[0].Requests[0].Context; got != "Q: Sample?\nA: yes\n\nQ: Capital of France?\nA:" {
		t.Errorf("prompt %q", got)
	}
	for i, c := range []struct {
		resp, filtered string
		match          float64
	}{{"  paris ", "PARIS!", 1}, {"4", "4!", 1}, {" green", "GREEN!", 0}, {"jupiter\t", "JUPITER!", 1}} {
		res, err := tk.Process(&insts[i], []tasks.Response{{Text: c.resp}})
		if err != nil {
			t.Fatal(err)
		}
		r := res["shout"]
		if r.FilteredResps != c.filtered {
			t.Errorf("doc %d: filtered %v, want %q", i, r.FilteredResps, c.filtered)
		}
		if v, _ := r.Metrics["match"].Float(); v != c.match {
			t.Errorf("doc %d: match %v, want %v", i, v, c.match)
		}
	}
	if ix.PythonStarts() != 1 {
		t.Errorf("%d Python workers started, want 1", ix.PythonStarts())
	}
}

// TestNoPythonStarted: with Python on, tasks whose hooks Go answers, or
// that have none, start no worker.
func TestNoPythonStarted(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	ix := tasks.NewIndex()
	ix.SetPython("python3", 0)
	defer ix.Close()
	for _, dir := range []string{filepath.Join(yamlTestdata, "tasks"), "testdata/lmeval_builtin_yaml"} {
		if _, _, err := ix.IncludePath(dir); err != nil {
			t.Fatal(err)
		}
	}
	opts := tasks.DefaultOptions()
	opts.DataDir = filepath.Join(yamlTestdata, "data")
	for _, name := range []string{"sciq", "triviaqa", "goeval_custom_multi_target", "gsm8k_platinum", "hellaswag", "winogrande", "drop"} {
		tk, err := ix.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "sciq" || name == "triviaqa" || name == "goeval_custom_multi_target" {
			if _, err := tk.Build(opts); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range ix.List() {
		_, _ = ix.Get(n)
	}
	if n := ix.PythonStarts(); n != 0 {
		t.Errorf("%d Python workers started for tasks that need none", n)
	}
}
