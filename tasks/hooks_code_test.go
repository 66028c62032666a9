package tasks

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/metrics"
)

// TestExtractCodeBlock: mbpp's extract_code_blocks, quirks included (the
// block's language tag is \w+, so "def" after the gen_prefix's ``` is
// taken for one), as lm-eval 0.4.13's function returns on these texts.
func TestExtractCodeBlock(t *testing.T) {
	for _, c := range [][2]string{ // [text, lm-eval's extract_code_blocks(text)]
		{"\ndef add(a, b):\n    return a + b\n```\nThis adds.", "def add(a, b):\n    return a + b"},
		{"```python\ndef is_even(n):\n    return n % 2 == 0\n```", ""},
		{"no code here", ""},
		{"def f():\n  pass\n", ""},
		{"```\ndef fib(n):\n    return 0\n```\n```python\ndef fib(n):\n    return n\n```", ""},
		{"def max_of(xs):\n    return min(xs)\n```", " max_of(xs):\n    return min(xs)"},
		{"x = 1\n```python\ny = 2\n```", " = 1"},
		{"é\n```", ""},
	} {
		if got := extractCodeBlock(c[0]); got != c[1] {
			t.Errorf("extractCodeBlock(%q) = %q, lm-eval %q", c[0], got, c[1])
		}
	}
}

// fakeRunner passes the programs that contain "ok".
type fakeRunner struct{ programs []string }

func (f *fakeRunner) RunPrograms(_ context.Context, ps []string) ([]string, error) {
	f.programs = append(f.programs, ps...)
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = "failed: AssertionError"
		if strings.Contains(p, "ok") {
			out[i] = "passed"
		}
	}
	return out, nil
}

// TestPassAtKHook: humaneval's pass_at_k runs candidate + "\n" + tests
// for each candidate and reports code_eval's estimate for each k the
// candidates cover; mbpp's pass_at_1 takes one candidate or a list.
func TestPassAtKHook(t *testing.T) {
	names, err := passAtKNames(map[string]any{"k": []any{int64(1), int64(2), int64(8)}})
	if err != nil || !reflect.DeepEqual(names, []string{"pass@1", "pass@2", "pass@8"}) {
		t.Fatalf("names %v (%v)", names, err)
	}
	r := &fakeRunner{}
	pred := []any{"ok1", "bad", "ok2", "bad"}
	got, err := passAtKScore(context.Background(), "TESTS", pred, map[string]any{"k": []any{int64(1), int64(2), int64(8)}}, r)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]metrics.Value{"pass@1": metrics.Float(metrics.PassAtK(4, 2, 1)), "pass@2": metrics.Float(metrics.PassAtK(4, 2, 2))}
	if !reflect.DeepEqual(got, want) { // no pass@8 from 4 candidates
		t.Errorf("pass_at_k = %v, want %v", got, want)
	}
	if r.programs[0] != "ok1\nTESTS" {
		t.Errorf("program %q, want candidate + \"\\n\" + tests", r.programs[0])
	}
	one, err := passAt1Score(context.Background(), "T", "ok", nil, &fakeRunner{})
	if err != nil || one["pass_at_1"] != metrics.Float(1) {
		t.Errorf("pass_at_1 of one passing candidate = %v (%v)", one, err)
	}
	if _, err := passAtKScore(context.Background(), "T", "ok", map[string]any{"k": int64(1)}, nil); err == nil {
		t.Error("no runner: no error")
	}
}

// TestBuildPredictions: humaneval's build_predictions puts the prompt
// before each answer; the instruct one cuts an answer at its first ```.
func TestBuildPredictions(t *testing.T) {
	doc := Doc{"prompt": "def f():\n"}
	got, _ := withPrompt([]string{"    return 1\n```\ntext", "    pass\n"}, doc, true)
	if want := []string{"def f():\n    return 1\n", "def f():\n    pass\n"}; !reflect.DeepEqual(got, want) {
		t.Errorf("instruct: %q, want %q", got, want)
	}
	got, _ = withPrompt([]string{"    return 1\n```"}, doc, false)
	if want := []string{"def f():\n    return 1\n```"}; !reflect.DeepEqual(got, want) {
		t.Errorf("plain: %q, want %q", got, want)
	}
}

// TestUnsafeCodeRefused: a task with unsafe_code builds only with
// ConfirmRunUnsafeCode, and then with the runner given.
func TestUnsafeCodeRefused(t *testing.T) {
	s := &spec{name: "code_task", unsafe: true}
	err := s.codeRunner(DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "--confirm-run-unsafe-code") {
		t.Fatalf("no confirmation: %v", err)
	}
	o := DefaultOptions()
	o.ConfirmRunUnsafeCode, o.CodeRunner = true, &fakeRunner{}
	if err := s.codeRunner(o); err != nil || s.code != o.CodeRunner {
		t.Fatalf("confirmed: %v, runner %v", err, s.code)
	}
}
