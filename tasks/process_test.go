package tasks

import (
	"testing"

	"github.com/goeval/goeval/metrics"
)

func mustGet(t *testing.T, name string) Task {
	t.Helper()
	task, err := NewIndex().Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestProcessMultipleChoice(t *testing.T) {
	task := mustGet(t, "arc_easy")
	doc := Doc{"question": "q", "answerKey": "B", "choices": map[string]any{"text": []any{"a", "bbbbbbbb"}, "label": []any{"A", "B"}}}
	inst := &Instance{Doc: doc, Target: 1, Requests: make([]Request, 2)}
	// acc picks choice 0 (-1 > -2); acc_norm picks 1 (-2/8 > -1/1).
	res, err := task.Process(inst, []Response{{LogProb: -1}, {LogProb: -2}})
	if err != nil {
		t.Fatal(err)
	}
	if m := res["none"].Metrics; m["acc"] != metrics.Float(0) || m["acc_norm"] != metrics.Float(1) {
		t.Fatalf("metrics %v", m)
	}
}

func TestProcessGSM8K(t *testing.T) {
	task := mustGet(t, "gsm8k")
	inst := &Instance{Target: "so 1+1=2\n#### 1,234", Requests: make([]Request, 1)}
	res, err := task.Process(inst, []Response{{Text: "It is 12. #### 1,234.\nThen $1234 left"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res["strict-match"]; r.Metrics["exact_match"] != metrics.Float(1) || r.FilteredResps != "1,234." {
		t.Fatalf("strict %+v", r)
	}
	if r := res["flexible-extract"]; r.Metrics["exact_match"] != metrics.Float(1) || r.FilteredResps != "$1234" {
		t.Fatalf("flexible %+v", r)
	}
}

func TestProcessDrop(t *testing.T) {
	task := mustGet(t, "drop")
	inst := &Instance{Doc: Doc{"answers": []any{[]any{"the Bears"}, []any{"7"}}}, Requests: make([]Request, 1)}
	res, err := task.Process(inst, []Response{{Text: "Bears"}})
	if err != nil {
		t.Fatal(err)
	}
	if m := res["none"].Metrics; m["em"] != metrics.Float(1) || m["f1"] != metrics.Float(1) {
		t.Fatalf("metrics %v", m)
	}
	// No gold matched: Python's max(0, 0.0) keeps the int 0, and lm-eval
	// logs 0 rather than 0.0.
	res, err = task.Process(inst, []Response{{Text: "Lions"}})
	if err != nil {
		t.Fatal(err)
	}
	if m := res["none"].Metrics; m["em"] != metrics.Int(0) || m["f1"] != metrics.Int(0) {
		t.Fatalf("metrics %v (%v), want int zeros", m, m["em"].Py())
	}
}

func TestLoglikelihoodAccIsInt(t *testing.T) {
	task := mustGet(t, "lambada_openai")
	inst := &Instance{Doc: Doc{"text": "a b"}, Requests: make([]Request, 1)}
	res, err := task.Process(inst, []Response{{LogProb: -1, IsGreedy: true}})
	if err != nil {
		t.Fatal(err)
	}
	if acc := res["none"].Metrics["acc"]; acc != metrics.Int(1) {
		t.Fatalf("acc = %#v, want int 1 as lm-eval's int(is_greedy)", acc.Py())
	}
}

func TestProcessWikitext(t *testing.T) {
	task := mustGet(t, "wikitext")
	inst := &Instance{Doc: Doc{"page": " a b\nc "}, Requests: make([]Request, 1)}
	res, err := task.Process(inst, []Response{{LogProb: -3}})
	if err != nil {
		t.Fatal(err)
	}
	// re.split(r"\s+", " a b\nc ") = ['', 'a', 'b', 'c', ''] → 5 words; 7 bytes.
	m := res["none"].Metrics
	if m["word_perplexity"] != metrics.Pair(-3, 5) || m["bits_per_byte"] != metrics.Pair(-3, 7) {
		t.Fatalf("metrics %v", m)
	}
}

func TestBoxedAnswer(t *testing.T) {
	for _, c := range [][2]string{{"\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"}, {"x = \\boxed 7$", "7"}} {
		if got, err := boxedAnswer(c[0]); err != nil || got != c[1] {
			t.Errorf("boxedAnswer(%q) = %q, %v", c[0], got, err)
		}
	}
	if _, err := boxedAnswer("no box"); err == nil {
		t.Error("boxedAnswer accepted a solution without \\boxed")
	}
}

func TestHendrycksScoring(t *testing.T) {
	task := mustGet(t, "hendrycks_math_algebra")
	inst := &Instance{Doc: Doc{"solution": "so $\\boxed{\\dfrac{1}{2}}$"}, Requests: make([]Request, 1)}
	res, err := task.Process(inst, []Response{{Text: " The answer is $0.5$ ok"}})
	if err != nil {
		t.Fatal(err)
	}
	if res["none"].Metrics["exact_match"] != metrics.Int(1) { // an int, as lm-eval's retval
		t.Fatalf("metrics %v", res["none"].Metrics)
	}
}
