package tasks_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

// The goldens under testdata/lmeval/ are lm-eval 0.4.13's own rendering of
// every built-in task over `goeval synth data --task all --n 24` (written
// by parity/lmeval/dump_tasks.py). These tests rebuild the same synthetic
// data and require byte-identical docs, targets, request arguments (few-shot
// contexts included) and --limit 0.2 document ids.

const parityDocs = 24

var (
	synthOnce sync.Once
	synthDir  string
	synthErr  error
)

func synthData(t *testing.T) string {
	t.Helper()
	synthOnce.Do(func() {
		synthDir, synthErr = os.MkdirTemp("", "goeval-synth-")
		if synthErr == nil {
			_, synthErr = synth.Data("all", synthDir, synth.DataOptions{N: parityDocs})
		}
	})
	if synthErr != nil {
		t.Fatal(synthErr)
	}
	return synthDir
}

// renderInstance is one golden line for inst: json.dumps of doc_id, the
// doc in column order, str(target) and the request arguments.
func renderInstance(t *testing.T, inst tasks.Instance) string {
	t.Helper()
	var args []any
	for _, r := range inst.Requests {
		switch r.Kind {
		case tasks.ReqLoglikelihood:
			args = append(args, []any{r.Context, r.Continuation})
		case tasks.ReqRolling:
			args = append(args, []any{r.Text})
		case tasks.ReqGenerate:
			args = append(args, []any{r.Context, r.LoggedGenKwargs()})
		}
	}
	line := py.NewMap[any]()
	line.Set("doc_id", inst.DocID)
	line.Set("doc", tasks.OrderedDoc(inst.Doc, inst.DocKeys))
	line.Set("target", py.Str(inst.Target))
	line.Set("arguments", args)
	b, err := py.JSON(line, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// buildMatches builds task's instances under opts and requires one per
// golden line, each rendering byte-identical to it.
func buildMatches(t *testing.T, task tasks.Task, opts tasks.Options, want []string) []tasks.Instance {
	t.Helper()
	insts, err := task.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != len(want) {
		t.Fatalf("%d instances, lm-eval %d", len(insts), len(want))
	}
	for i, inst := range insts {
		if got := renderInstance(t, inst); got != want[i] {
			t.Fatalf("doc %d differs:\n got %s\nwant %s", i, got, want[i])
		}
	}
	return insts
}

func readGolden(t *testing.T, path string) (head map[string]any, lines []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if head == nil {
			if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
				t.Fatal(err)
			}
			continue
		}
		lines = append(lines, sc.Text())
	}
	return head, lines
}

func TestLMEvalParity(t *testing.T) {
	dir := synthData(t)
	files, _ := filepath.Glob("testdata/lmeval/*.jsonl")
	if len(files) != len(tasks.NewIndex().List()) {
		t.Errorf("%d goldens for %d tasks", len(files), len(tasks.NewIndex().List()))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			head, want := readGolden(t, f)
			task, err := tasks.NewIndex().Get(name)
			if err != nil {
				t.Fatal(err)
			}
			opts := tasks.DefaultOptions()
			opts.DataDir = dir
			if got := task.NumFewshot(opts); float64(got) != head["num_fewshot"].(float64) {
				t.Errorf("num_fewshot %d, lm-eval %v", got, head["num_fewshot"])
			}
			buildMatches(t, task, opts, want)
			opts.Limit = 0.2
			lim, err := task.Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			ids := head["limit_0.2_doc_ids"].([]any)
			if len(lim) != len(ids) {
				t.Fatalf("--limit 0.2: %d docs, lm-eval %d", len(lim), len(ids))
			}
			for i, inst := range lim {
				if inst.DocID != int(ids[i].(float64)) || renderInstance(t, inst) != want[i] {
					t.Fatalf("--limit 0.2 doc %d differs from the full run's", i)
				}
			}
		})
	}
}
