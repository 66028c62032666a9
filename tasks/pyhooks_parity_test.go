package tasks_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/tasks"
)

// The goldens under testdata/lmeval_pyhooks are lm-eval 0.4.13's task objects
// for task files that name Python functions (process_docs, doc_to_text and
// fewshot doc_to_text, doc_to_target, process_results, metric functions, an
// aggregation, a Filter class), over synthetic documents, with canned model
// answers: written by parity/lmeval/dump_pyhook_tasks.py. goeval runs the
// same Python functions in its worker and must give the same requests byte
// for byte, the same filtered responses and per-document metrics (as the
// samples file writes them) and the same aggregates.

const pyhooksTestdata = "testdata/lmeval_pyhooks"

// lmevalPython is the repository's .venv Python (make venv), which has
// lm-eval, for the tests that run lm-eval's own task modules; they are
// skipped without it (make parity runs them and fails on a skip).
func lmevalPython(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../.venv/bin/python")
	if err != nil || exec.Command(p, "-c", "import lm_eval, datasets, sklearn").Run() != nil {
		t.Skip("no .venv Python with lm_eval, datasets and scikit-learn (make venv)")
	}
	return p
}

func TestLMEvalPythonHooksParity(t *testing.T) {
	python := lmevalPython(t)
	ix := tasks.NewIndex()
	ix.SetPython(python, 0)
	defer ix.Close()
	if _, _, err := ix.IncludePath(filepath.Join(pyhooksTestdata, "tasks")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(pyhooksTestdata, "golden", "*.jsonl"))
	if len(files) < 5 {
		t.Fatalf("%d golden tasks, want at least 5", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			head, want := readGolden(t, f)
			tk, err := ix.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			checkYAMLHead(t, tk, head)
			opts := tasks.DefaultOptions()
			opts.DataDir = filepath.Join(pyhooksTestdata, "data")
			insts := buildMatches(t, tk, opts, want)
			checkPyScoring(t, tk, insts, filepath.Join(pyhooksTestdata, "golden", "scoring", name+".jsonl"))
		})
	}
}

// scoringLine is one document of a scoring golden.
type scoringLine struct {
	DocID    int                                   `json:"doc_id"`
	Resps    [][]json.RawMessage                   `json:"resps"`
	Filtered map[string]json.RawMessage            `json:"filtered"`
	Metrics  map[string]map[string]json.RawMessage `json:"metrics"`
}

// checkPyScoring feeds the golden's canned answers to Process and compares
// filtered responses, metric values (as the samples file writes them) and
// aggregates.
func checkPyScoring(t *testing.T, tk tasks.Task, insts []tasks.Instance, path string) {
	t.Helper()
	lines := readLines(t, path)
	vals := map[string][]metrics.Value{}
	for _, line := range lines[:len(lines)-1] {
		var g scoringLine
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		inst := insts[g.DocID]
		got, err := tk.Process(&inst, cannedResponses(t, inst, g.Resps))
		if err != nil {
			t.Fatalf("doc %d: %v", g.DocID, err)
		}
		for filter, wantF := range g.Filtered {
			r, ok := got[filter]
			if !ok {
				t.Fatalf("doc %d: no filter %s in %v", g.DocID, filter, got)
			}
			filtered := r.FilteredResps
			if inst.Requests[0].Kind == tasks.ReqGenerate {
				filtered = []any{filtered}
			}
			sameJSON(t, "doc filtered "+filter, filtered, wantF)
			for m, wantV := range g.Metrics[filter] {
				v, ok := r.Metrics[m]
				if !ok {
					t.Fatalf("doc %d filter %s: no metric %s", g.DocID, filter, m)
				}
				if _, byPython := v.Raw(); !byPython && v.IsPair() {
					// goeval's own (gold, pred) pairs are written [0.0, 1] where
					// lm-eval writes [0, 1] (an older difference, of the samples
					// file only): compared as numbers
					samePair(t, "metric "+m+","+filter, v, wantV)
				} else {
					sameJSON(t, "metric "+m+","+filter, v.Py(), wantV)
				}
				vals[m+","+filter] = append(vals[m+","+filter], v)
			}
		}
	}
	var agg struct{ Aggregates map[string]json.RawMessage }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &agg); err != nil {
		t.Fatal(err)
	}
	for key, want := range agg.Aggregates {
		name, _, _ := strings.Cut(key, ",")
		got := aggregate(t, tk, name, vals[key])
		sameJSON(t, "aggregate "+key, got, want)
	}
}

// aggregate is the evaluator's aggregation of one metric: the task's own
// (Python) function, else the one MetricSpec names.
func aggregate(t *testing.T, tk tasks.Task, name string, vals []metrics.Value) float64 {
	t.Helper()
	if a, ok := tk.(tasks.Aggregator); ok {
		if fn := a.Aggregation(name); fn != nil {
			v, err := fn(vals)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	for _, ms := range tk.Metrics() {
		if ms.Name == name {
			v, err := metrics.Aggregate(ms.Aggregation, vals)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// cannedResponses reads the golden's answer of each request.
func cannedResponses(t *testing.T, inst tasks.Instance, resps [][]json.RawMessage) []tasks.Response {
	t.Helper()
	out := make([]tasks.Response, len(inst.Requests))
	for i, r := range resps {
		if inst.Requests[i].Kind == tasks.ReqGenerate {
			if err := json.Unmarshal(r[0], &out[i].Text); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var pair [2]any
		if err := json.Unmarshal(r[0], &pair); err != nil {
			t.Fatal(err)
		}
		out[i].LogProb, out[i].IsGreedy = pair[0].(float64), pair[1].(bool)
	}
	return out
}

// sameJSON compares got, written as Python's json.dumps, with the golden's
// JSON text (ints and floats apart).
func sameJSON(t *testing.T, what string, got any, want json.RawMessage) {
	t.Helper()
	g, err := py.JSON(got, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := py.ParseJSON(want)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := py.JSON(w, false)
	if !bytes.Equal(g, wb) {
		t.Errorf("%s: goeval %s, lm-eval %s", what, g, wb)
	}
}

// samePair compares a pair value with the golden's numbers.
func samePair(t *testing.T, what string, v metrics.Value, want json.RawMessage) {
	t.Helper()
	var w [2]float64
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if p, _ := v.Pair(); p != w {
		t.Errorf("%s: goeval %v, lm-eval %v", what, p, w)
	}
}
