package tasks_test

import (
	"encoding/json"
	"testing"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/tasks"
)

// TestPythonCustomDataset: a task file's custom_dataset runs in the worker
// with lm-eval's keyword arguments — the file's metadata, the run's
// (SetMetadata) over it, config_source, then dataset_kwargs — and its
// test split becomes the task's documents.
func TestPythonCustomDataset(t *testing.T) {
	ix := plainPython(t)
	if _, _, err := ix.IncludePath("testdata/pycustom"); err != nil {
		t.Fatal(err)
	}
	md := py.NewMap[any]()
	md.Set("max_seq_lengths", []any{json.Number("4096"), json.Number("8192")}) // as --metadata's JSON reads
	ix.SetMetadata(nil, md, "/models/m")
	tk, err := ix.Get("plain_custom")
	if err != nil {
		t.Fatal(err)
	}
	insts, err := tk.Build(tasks.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 2 {
		t.Fatalf("%d instances, want 2 (one per --metadata max_seq_lengths)", len(insts))
	}
	for i, n := range []string{"4096", "8192"} {
		if got, want := insts[i].Requests[0].Context, "Say "+n+" (/models/m)."; got != want {
			t.Errorf("doc %d: prompt %q, want %q", i, got, want)
		}
	}
	if got, want := insts[0].Doc["keys"], "version,max_seq_lengths,pretrained,config_source,extra"; got != want {
		t.Errorf("keyword arguments %v, want %s", got, want)
	}
}
