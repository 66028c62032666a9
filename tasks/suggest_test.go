package tasks

import (
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

// TestUnknownTaskSuggestions pins the "did you mean" part of the unknown
// task error: prefix and substring matches first, then close typos, and
// nothing when no name is close.
func TestUnknownTaskSuggestions(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"arc", `unknown task "arc": did you mean "arc_easy" or "arc_challenge"?`},
		{"ARC_E", `did you mean "arc_easy"?`},
		{"hellasawg", `did you mean "hellaswag"?`},
		{"gsm8", `did you mean "gsm8k" or "gsm8k_cot"?`},
		{"drp", `did you mean "drop"?`},
		{"mml", `did you mean "mmlu", "mmlu_stem", "mmlu_other" or one of`},
		{"mmlu_stm", `did you mean "mmlu_stem"?`},
		{"math_algebra", `did you mean "minerva_math_algebra" or "hendrycks_math_algebra"?`},
		{"college", `did you mean "mmlu_college_biology", "mmlu_college_physics", "mmlu_college_medicine" or one of 3 more?`},
		{"nosuchtask", `unknown task "nosuchtask" ('goeval tasks' lists them)`},
		{"zzzzzzzzzzzzzz", `unknown task "zzzzzzzzzzzzzz" ('goeval tasks' lists them)`},
		{"x", `unknown task "x" ('goeval tasks' lists them)`},
		{"mmlu_stem", `"mmlu_stem" is a group of 19 tasks, not a task`},
	} {
		_, err := NewIndex().Get(c.name)
		if !errs.IsBadInput(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Get(%q) = %v; want bad input containing %s", c.name, err, c.want)
		}
	}
}

func TestExpandEmptyName(t *testing.T) {
	for _, names := range [][]string{{"", ""}, {"arc_easy", " "}} {
		_, _, err := NewIndex().Expand(names)
		if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "--tasks has an empty name") {
			t.Errorf("Expand(%q) = %v; want the empty-name error", names, err)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"drop", "drop", 0}, {"hellasawg", "hellaswag", 1}, {"temprature", "temperature", 1}, {"arc", "drop", 3}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
