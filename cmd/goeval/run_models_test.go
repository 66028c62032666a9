package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/synth"
)

func TestExpandModels(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"step-200", "step-100", "notes.txt"} {
		p := filepath.Join(dir, n)
		if filepath.Ext(n) == ".txt" {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := expandModels("base, " + filepath.Join(dir, "step-*") + ",base")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"base", filepath.Join(dir, "step-100"), filepath.Join(dir, "step-200")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("expandModels = %v, want %v", got, want)
	}
	for _, bad := range []string{filepath.Join(dir, "nothing-*"), filepath.Join(dir, "*.txt"), " , "} {
		if _, err := expandModels(bad); err == nil {
			t.Errorf("expandModels(%q) accepted", bad)
		}
	}
}

// TestRunSweep evaluates two tiny checkpoints given as a glob: each gets
// its own results folder.
func TestRunSweep(t *testing.T) {
	dir, data, out := t.TempDir(), t.TempDir(), t.TempDir()
	if _, err := synth.Data("boolq", data, synth.DataOptions{N: 4}); err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(dir, "tok")
	if _, err := synth.Tokenizer(tok, 300); err != nil {
		t.Fatal(err)
	}
	for i, n := range []string{"ck-1", "ck-2"} {
		o := synth.ModelOptions{Arch: "qwen2", Hidden: 16, Layers: 1, Heads: 2, KVHeads: 1, Intermediate: 32,
			Vocab: 300, RopeTheta: 10000, MaxPositions: 512, Seed: uint64(i + 1), DType: "f32", Shards: 1,
			TokenizerDir: tok, Out: filepath.Join(dir, n)}
		if err := synth.Model(o); err != nil {
			t.Fatal(err)
		}
	}
	code := runMain([]string{"run", "--model", filepath.Join(dir, "ck-*"), "--tasks", "boolq", "--data-dir", data,
		"--limit", "2", "--output-path", out, "--bootstrap-iters", "0"})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, n := range []string{"ck-1", "ck-2"} {
		sub := filepath.Join(out, report.SanitizeModelName(filepath.Join(dir, n)))
		if res, _ := filepath.Glob(filepath.Join(sub, "results_*.json")); len(res) != 1 {
			t.Errorf("%s: results files %v", sub, res)
		}
	}
}
