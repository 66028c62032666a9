package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/synth"
)

// TestRunFake runs "goeval run --model fake" on synthetic data and parses
// the results and samples files back, checking lm-eval's keys.
func TestRunFake(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	for _, n := range []string{"boolq", "gsm8k", "wikitext"} {
		if _, err := synth.Data(n, data, synth.DataOptions{N: 12, Seed: 2}); err != nil {
			t.Fatal(err)
		}
	}
	code := runMain([]string{"run", "--model", "fake", "--tasks", "boolq,gsm8k,wikitext", "--data-dir", data,
		"--limit", "0.5", "--output-path", out, "--log-samples", "--bootstrap-iters", "100"})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	res, _ := filepath.Glob(filepath.Join(out, "fake", "results_*.json"))
	if len(res) != 1 {
		t.Fatalf("results files: %v", res)
	}
	r, err := report.ReadResults(res[0])
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := map[string][]string{
		"boolq":    {"name", "alias", "sample_len", "acc,none", "acc_stderr,none"},
		"gsm8k":    {"name", "alias", "sample_len", "exact_match,strict-match", "exact_match_stderr,strict-match", "exact_match,flexible-extract", "exact_match_stderr,flexible-extract"},
		"wikitext": {"name", "alias", "sample_len", "word_perplexity,none", "word_perplexity_stderr,none", "byte_perplexity,none", "byte_perplexity_stderr,none", "bits_per_byte,none", "bits_per_byte_stderr,none"},
	}
	for task, keys := range wantKeys {
		m, ok := r.Results.Get(task)
		if !ok || !reflect.DeepEqual(m.Keys(), keys) {
			t.Errorf("%s keys = %v, want %v", task, m.Keys(), keys)
		}
		if ns, _ := r.NSamples.Get(task); ns.Effective != 6 {
			t.Errorf("%s n-samples %+v, want effective 6 (ceil(12*0.5))", task, ns)
		}
	}
	if v, _ := r.Results.Get("wikitext"); v != nil {
		if se, _ := v.Get("bits_per_byte_stderr,none"); se != "N/A" {
			t.Errorf("bits_per_byte stderr = %v, want N/A", se)
		}
	}
	samples, _ := filepath.Glob(filepath.Join(out, "fake", "samples_gsm8k_*.jsonl"))
	if len(samples) != 1 {
		t.Fatalf("gsm8k samples files: %v", samples)
	}
	rows, err := report.ReadSamples(samples[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 { // 6 docs × 2 filters
		t.Fatalf("%d gsm8k rows, want 12", len(rows))
	}
	row := rows[0]
	if row.Filter != "strict-match" || !reflect.DeepEqual(row.Metrics, []string{"exact_match"}) || row.DocHash == "" || row.PromptHash == "" {
		t.Errorf("row = %+v", row)
	}
	if fr, ok := row.FilteredResps.([]any); !ok || len(fr) != 1 {
		t.Errorf("filtered_resps = %#v, want a one-element list", row.FilteredResps)
	}
	if _, ok := row.Values.Get("exact_match"); !ok {
		t.Error("no exact_match value in the sample row")
	}
}

func TestRunBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--model", "fake", "--tasks", "boolq", "--limit", "-0.5"},
		{"run", "--model", "fake", "--tasks", "boolq", "--batch-size", "0"},
		{"run", "--model", "fake", "--tasks", "boolq", "--device", "tpu"},
		{"run", "--model", "fake", "--tasks", "boolq", "--log-samples"},
		{"run", "--model", "fake", "--tasks", "boolq", "--gen-kwargs", "novalue"},
		{"run", "--model", "fake", "--tasks", "nosuchtask", "--data-dir", os.TempDir()},
		{"run", "--tasks", "boolq"},
		{"run", "--model", "fake", "--tasks", "boolq", "--bogus"},
	} {
		if code := runMain(args); code != 2 {
			t.Errorf("%s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}
