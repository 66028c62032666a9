package tasks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeIfevalData writes docs as google/IFEval's train split under a
// data directory, and returns the directory.
func writeIfevalData(t *testing.T, docs []Doc) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "google", "IFEval", "train.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range docs {
		line, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// processIfeval builds lm-eval's ifeval.yaml on the data and scores each
// document with its response; errs holds each document's error.
func processIfeval(t *testing.T, ix *Index, data string, resps []string) ([]map[string]SampleResult, []error, Task) {
	t.Helper()
	if _, _, err := ix.IncludePath("testdata/lmeval_ifeval"); err != nil {
		t.Fatal(err)
	}
	task, err := ix.Get("ifeval")
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.DataDir = data
	insts, err := task.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != len(resps) {
		t.Fatalf("%d instances for %d documents", len(insts), len(resps))
	}
	out := make([]map[string]SampleResult, len(insts))
	errs := make([]error, len(insts))
	for i := range insts {
		out[i], errs[i] = task.Process(&insts[i], []Response{{Text: resps[i]}})
	}
	return out, errs, task
}

// TestIfevalTaskWithoutPython loads lm-eval's ifeval.yaml with no Python
// (--python none): its !function hooks resolve to Go, the documents of
// checks Go answers score, and a document with a language check fails
// with a line naming what it needs. With a Python that has lm-eval's
// ifeval extra, every document scores, and the others exactly as without.
func TestIfevalTaskWithoutPython(t *testing.T) {
	docs, resps := ifevalDocs(readIfevalGolden(t), 80)
	lang := len(docs)
	docs = append(docs, Doc{"key": int64(lang), "prompt": "Answer in German.",
		"instruction_id_list": []any{"language:response_language"}, "kwargs": []any{map[string]any{"language": "de"}}})
	resps = append(resps, "Das ist eine Antwort auf Deutsch, und sie ist lang genug.")
	data := writeIfevalData(t, docs)
	goRes, goErrs, task := processIfeval(t, NewIndex(), data, resps)
	for i, err := range goErrs[:lang] {
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	if err := goErrs[lang]; err == nil || !strings.Contains(err.Error(), "give --python") {
		t.Errorf("language document without Python: got %v, want a line asking for --python", err)
	}
	agg, ok := task.(Aggregator)
	if !ok || agg.Aggregation("inst_level_strict_acc") == nil {
		t.Fatal("inst_level_strict_acc has no Go aggregation")
	}

	py := ifevalPython(t)
	ix := NewIndex()
	ix.SetPython(py, 0)
	pyRes, pyErrs, _ := processIfeval(t, ix, data, resps)
	for i, err := range pyErrs {
		if err != nil {
			t.Fatalf("document %d with Python: %v", i, err)
		}
	}
	if !reflect.DeepEqual(goRes[:lang], pyRes[:lang]) {
		t.Error("the documents Go scores score differently when the Index has a Python")
	}
	if m := pyRes[lang]["none"].Metrics; len(m) != 4 {
		t.Errorf("language document through Python: metrics %v", m)
	}
}
