package main

import (
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/synth"
)

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
