package goeval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/tasks"
)

// indexTaskYAML is a multiple-choice task NAME over a local file whose
// prompts start with MARK.
const indexTaskYAML = `task: NAME
dataset_path: json
dataset_kwargs:
  data_files:
    test: docs.jsonl
test_split: test
output_type: multiple_choice
doc_to_text: "MARK {{ q }}"
doc_to_target: 0
doc_to_choice: ["yes", "no"]
metric_list:
  - metric: acc
`

// indexFolder writes a folder with the task name, whose prompts start
// with mark.
func indexFolder(t *testing.T, name, mark string) string {
	t.Helper()
	dir := t.TempDir()
	yaml := strings.NewReplacer("NAME", name, "MARK", mark).Replace(indexTaskYAML)
	docs := `{"q": "one"}` + "\n" + `{"q": "two"}` + "\n"
	for name, body := range map[string]string{"task.yaml": yaml, "docs.jsonl": docs} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// firstContext is the context of the first request of res's only task.
func firstContext(t *testing.T, res *Results) string {
	t.Helper()
	if len(res.Tasks) != 1 || len(res.Tasks[0].Samples) == 0 {
		t.Fatalf("want one task with samples, got %+v", res.Tasks)
	}
	return res.Tasks[0].Samples[0].Requests[0].Context
}

// TestEvaluateIndexesApart runs three evaluations of "arc_easy" at once in
// one process: two with Indexes of different include paths, whose YAML
// files each replace the built-in, and one with no Index (the built-in).
// Each must see its own definition: no task state is process-wide.
func TestEvaluateIndexesApart(t *testing.T) {
	data := synthData(t, "arc_easy")
	marks := []string{"alpha:", "beta:", ""}
	ctxs := make([]string, len(marks))
	errs := make([]error, len(marks))
	var wg sync.WaitGroup
	for i, mark := range marks {
		opts := evalOpts(data, "arc_easy")
		if mark != "" {
			dir := indexFolder(t, "arc_easy", mark)
			opts.Index = tasks.NewIndex()
			if _, _, err := opts.Index.IncludePath(dir); err != nil {
				t.Fatal(err)
			}
			opts.Task.DataDir = dir
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Evaluate(context.Background(), lmtest.New(), opts)
			if errs[i] = err; err == nil {
				ctxs[i] = firstContext(t, res)
			}
		}()
	}
	wg.Wait()
	for i, mark := range marks {
		if errs[i] != nil {
			t.Fatalf("evaluation %d: %v", i, errs[i])
		}
		if mark != "" && ctxs[i] != mark+" one" {
			t.Errorf("evaluation with %q's folder: first context %q, want %q", mark, ctxs[i], mark+" one")
		}
	}
	if strings.Contains(ctxs[2], "alpha") || strings.Contains(ctxs[2], "beta") || !strings.HasPrefix(ctxs[2], "Question: ") {
		t.Errorf("evaluation without an Index: first context %q, want the built-in arc_easy's (Question: …)", ctxs[2])
	}
}

// TestEvaluateIndexUnknown: a task only an Index defines runs with that
// Index and is unknown to an evaluation without it.
func TestEvaluateIndexUnknown(t *testing.T) {
	dir := indexFolder(t, "index_probe", "probe:")
	opts := evalOpts(dir, "index_probe")
	opts.Index = tasks.NewIndex()
	if _, err := opts.Index.LoadTaskFile(filepath.Join(dir, "task.yaml")); err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(context.Background(), lmtest.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := firstContext(t, res); got != "probe: one" {
		t.Errorf("first context %q, want %q", got, "probe: one")
	}
	_, err = Evaluate(context.Background(), lmtest.New(), evalOpts(dir, "index_probe"))
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), `unknown task "index_probe"`) {
		t.Errorf("index_probe without the Index that defines it: %v, want unknown task", err)
	}
}
