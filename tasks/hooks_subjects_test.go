package tasks

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goeval/goeval/internal/pyworker"
)

// datasetsPython is the repository's .venv Python (make venv), with the
// datasets package lm-eval's process_docs functions call; skipped without
// it.
func datasetsPython(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs("../.venv/bin/python")
	if exec.Command(p, "-c", "import datasets, lm_eval").Run() != nil {
		t.Skip("no .venv Python with datasets and lm_eval (make venv)")
	}
	return p
}

// TestGoHooksMatchPython runs each family of built-in subject hooks
// (hooks_subjects.go) and the Python function it stands for, from the task
// files copied in testdata/lmeval_pyhooks, on the same documents: the same
// documents must come out, in the same order, with the same columns.
func TestGoHooksMatchPython(t *testing.T) {
	rt := pyworker.New(datasetsPython(t), 0)
	defer rt.Close()
	root := "testdata/lmeval_pyhooks"
	for _, c := range []struct {
		name, module string
		data         []string
	}{
		{"global_mmlu.full.pl.utils.process_", "global_mmlu/full/pl/utils.py",
			[]string{"CohereForAI/Global-MMLU/pl/test.jsonl", "CohereForAI/Global-MMLU/pl/dev.jsonl"}},
		{"openai-mmmlu.default.utils.process_", "openai-mmmlu/default/utils.py",
			[]string{"openai/MMMLU/DE_DE/test.jsonl"}},
	} {
		for _, data := range c.data {
			for _, subject := range []string{"abstract_algebra", "anatomy", "astronomy", "virology"} {
				tab, err := readFiles([]string{filepath.Join(root, "data", data)})
				if err != nil {
					t.Fatal(err)
				}
				reg, ok := builtinHook(c.name + subject)
				if !ok {
					t.Fatalf("no Go hook answers %s%s", c.name, subject)
				}
				goRows, err := reg.fn.(DocsHook)(tab.Rows)
				if err != nil {
					t.Fatal(err)
				}
				f := &pyFunc{rt: rt, file: filepath.Join(root, "tasks", c.module), attr: "process_" + subject,
					name: "utils.process_" + subject, key: "process_docs"}
				if err := f.resolve(hookDocs); err != nil {
					t.Fatal(err)
				}
				keys := append([]string{}, tab.Keys[""]...)
				if err := pyProcessDocs(f, tab, lmRandomState{}); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(goRows, tab.Rows) || !reflect.DeepEqual(keys, tab.Keys[""]) {
					t.Errorf("%s%s on %s: Go kept %d documents, Python %d (columns %v, Python's %v)",
						c.name, subject, data, len(goRows), len(tab.Rows), keys, tab.Keys[""])
				}
				if subject == "abstract_algebra" && len(goRows) == 0 {
					t.Errorf("%s: no abstract_algebra documents: the test data do not exercise the filter", data)
				}
			}
		}
	}
	if _, ok := builtinHook("global_mmlu.full.pl.utils.process_not_a_subject"); ok {
		t.Error("a subject the module has no function for must not resolve to a Go hook")
	}
}
