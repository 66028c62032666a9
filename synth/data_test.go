package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// TestDataDeterministicAndLoadable writes every task's data twice (same
// seed: identical files), loads each task through the tasks loader, and
// checks that another seed changes the text.
func TestDataDeterministicAndLoadable(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	files, err := Data("all", a, DataOptions{N: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Data("all", b, DataOptions{N: 10, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := Data("gsm8k", c, DataOptions{N: 10, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(a, f)
		x, _ := os.ReadFile(f)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with one seed (%v)", rel, err)
		}
	}
	gsm := filepath.Join("openai", "gsm8k", "main", "test-00000-of-00001.parquet")
	x, _ := os.ReadFile(filepath.Join(a, gsm))
	if y, _ := os.ReadFile(filepath.Join(c, gsm)); bytes.Equal(x, y) {
		t.Error("seeds 3 and 4 wrote the same gsm8k data")
	}
	for _, name := range []string{"gsm8k", "hellaswag", "mmlu_anatomy", "wikitext", "drop"} {
		task, err := tasks.NewIndex().Get(name)
		if err != nil {
			t.Fatal(err)
		}
		opts := tasks.DefaultOptions()
		opts.DataDir = a
		if insts, err := task.Build(opts); err != nil || len(insts) != 10 {
			t.Errorf("%s: %d docs, %v", name, len(insts), err)
		}
	}
}

func TestDataUnknownTask(t *testing.T) {
	if _, err := Data("nope", t.TempDir(), DataOptions{}); err == nil || !errs.IsBadInput(err) {
		t.Fatalf("unknown task: %v, want a bad-input error", err)
	}
}
