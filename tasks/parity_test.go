package tasks

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
			_, synthErr = Synth("all", synthDir, SynthOptions{N: parityDocs})
		}
	})
	if synthErr != nil {
		t.Fatal(synthErr)
	}
	return synthDir
}

// renderInstance is one golden line for inst.
func renderInstance(inst Instance) string {
	var args []any
	for _, r := range inst.Requests {
		switch r.Kind {
		case ReqLoglikelihood:
			args = append(args, []any{r.Context, r.Continuation})
		case ReqRolling:
			args = append(args, []any{r.Text})
		case ReqGenerate:
			kw := map[string]any{}
			for k, v := range r.GenKwargs {
				kw[k] = v
			}
			var b strings.Builder
			pyJSON(&b, kw, map[string][]string{"": r.GenKeys}, "")
			args = append(args, []any{r.Context, rawJSON(b.String())})
		}
	}
	var b strings.Builder
	b.WriteString(`{"doc_id": `)
	pyJSON(&b, inst.DocID, nil, "")
	b.WriteString(`, "doc": `)
	pyJSON(&b, map[string]any(inst.Doc), inst.DocKeys, "")
	b.WriteString(`, "target": `)
	pyJSON(&b, pyStr(inst.Target), nil, "")
	b.WriteString(`, "arguments": [`)
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		parts := a.([]any)
		b.WriteByte('[')
		for j, p := range parts {
			if j > 0 {
				b.WriteString(", ")
			}
			if raw, ok := p.(rawJSON); ok {
				b.WriteString(string(raw))
			} else {
				pyJSON(&b, p, nil, "")
			}
		}
		b.WriteByte(']')
	}
	b.WriteString("]}")
	return b.String()
}

type rawJSON string

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
	if len(files) != len(List()) {
		t.Errorf("%d goldens for %d tasks", len(files), len(List()))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			head, want := readGolden(t, f)
			task, err := Get(name)
			if err != nil {
				t.Fatal(err)
			}
			opts := DefaultOptions()
			opts.DataDir = dir
			if got := task.NumFewshot(opts); float64(got) != head["num_fewshot"].(float64) {
				t.Errorf("num_fewshot %d, lm-eval %v", got, head["num_fewshot"])
			}
			insts, err := task.Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(insts) != len(want) {
				t.Fatalf("%d instances, lm-eval %d", len(insts), len(want))
			}
			for i, inst := range insts {
				if got := renderInstance(inst); got != want[i] {
					t.Fatalf("doc %d differs:\n got %s\nwant %s", i, got, want[i])
				}
			}
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
				if inst.DocID != int(ids[i].(float64)) || renderInstance(inst) != want[i] {
					t.Fatalf("--limit 0.2 doc %d differs from the full run's", i)
				}
			}
		})
	}
}
