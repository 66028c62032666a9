package tasks

import "testing"

// TestScoredOne: a pipeline without take_first logs a one-answer list (as
// lm-eval's filtered_resps), and the built-in metrics still score its
// answer, as they did a string; a longer list is not one answer.
func TestScoredOne(t *testing.T) {
	for _, c := range []struct {
		pred any
		want string
		ok   bool
	}{
		{"x", "x", true},
		{[]any{"x"}, "x", true},
		{[]any{"x", "y"}, "", false},
		{[]any{}, "", false},
	} {
		if got, ok := scoredOne(c.pred); got != c.want || ok != c.ok {
			t.Errorf("scoredOne(%#v) = %q, %v; want %q, %v", c.pred, got, ok, c.want, c.ok)
		}
	}
}
