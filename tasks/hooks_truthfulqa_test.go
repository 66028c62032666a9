package tasks

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/metrics"
)

// truthfulQAGolden is tasks/testdata/truthfulqa_gen.json
// (parity/metrics/truthfulqa_golden.py): lm-eval's process_docs_gen and
// process_results_gen on generated documents and generations.
type truthfulQAGolden struct {
	Docs      []Doc `json:"docs"`
	Processed []Doc `json:"processed"`
	Cases     []struct {
		Doc        int                    `json:"doc"`
		Generation string                 `json:"generation"`
		Results    map[string]json.Number `json:"results"`
	} `json:"cases"`
}

// TestTruthfulQAGenMatchesPython: the Go process_docs_gen gives lm-eval's
// documents, and process_results_gen its 12 values on every case bit for
// bit (acc an int, the rest floats), with sacrebleu's exp and log
// correctly rounded in both (see the golden script: glibc's own misrounds
// are the only difference from lm-eval on this machine).
func TestTruthfulQAGenMatchesPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/truthfulqa_gen.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var g truthfulQAGolden
	if err := dec.Decode(&g); err != nil {
		t.Fatal(err)
	}
	docs, err := truthfulQAGenDocs(g.Docs)
	if err != nil {
		t.Fatal(err)
	}
	want := g.Processed
	for i := range docs {
		if !reflect.DeepEqual(docs[i], want[i]) {
			t.Fatalf("process_docs_gen doc %d: Go %v\nPython %v", i, docs[i], want[i])
		}
	}
	if len(g.Cases) < 2000 {
		t.Fatalf("%d cases, want ≥ 2,000", len(g.Cases))
	}
	for i, c := range g.Cases {
		got, err := truthfulQAGenResults(docs[c.Doc], []Response{{Text: c.Generation}})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if len(got) != len(c.Results) {
			t.Fatalf("case %d: Go has %d metrics, Python %d", i, len(got), len(c.Results))
		}
		for k, w := range c.Results {
			if msg := truthfulQASame(got[k], w); msg != "" {
				t.Errorf("case %d (doc %d, generation %q) %s: %s", i, c.Doc, c.Generation, k, msg)
			}
		}
	}
}

// truthfulQASame is "" when v is w's kind (int or float) and value, bit
// for bit.
func truthfulQASame(v metrics.Value, w json.Number) string {
	isInt := !strings.ContainsAny(w.String(), ".eE")
	f, err := w.Float64()
	if err != nil {
		return err.Error()
	}
	switch p := v.Py().(type) {
	case int:
		if !isInt || float64(p) != f {
			return "Go int " + jsonFloat(float64(p)) + ", Python " + w.String()
		}
	case float64:
		if isInt || math.Float64bits(p) != math.Float64bits(f) {
			return "Go " + jsonFloat(p) + ", Python " + w.String()
		}
	default:
		return "not a number"
	}
	return ""
}

func jsonFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }

// TestTruthfulQAGenNoFalseAnswers: a document left without false answers
// is lm-eval's np.nanmax ValueError, an error here.
func TestTruthfulQAGenNoFalseAnswers(t *testing.T) {
	docs, err := truthfulQAGenDocs([]Doc{{"question": " q ", "correct_answers": []any{"yes"}, "incorrect_answers": []any{" ", ""}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := docs[0]["correct_answers"]; !reflect.DeepEqual(got, []any{"yes.", "I have no comment."}) {
		t.Errorf("correct_answers %v", got)
	}
	if _, err := truthfulQAGenResults(docs[0], []Response{{Text: "yes"}}); err == nil {
		t.Error("no false answers: want an error")
	}
}
