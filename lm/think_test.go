package lm

import "testing"

// TestThinkingSplit checks lm-eval's postprocess_generated_text cut:
// the last occurrence, the answer left-stripped (also without the token),
// the reasoning everything before the answer.
func TestThinkingSplit(t *testing.T) {
	th := Thinking{EndToken: "</think>"}
	cases := []struct{ in, reasoning, answer string }{
		{"<think>a</think>b</think>\n\n 42", "<think>a</think>b</think>\n\n ", "42"},
		{"  no token here ", "  ", "no token here "},
		{"</think>", "</think>", ""},
		{"x</think>\u2003\x1cy", "x</think>\u2003\x1c", "y"}, // Python's isspace: \x1c is whitespace
	}
	for _, c := range cases {
		r, a, _ := th.Split(c.in)
		if r != c.reasoning || a != c.answer {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", c.in, r, a, c.reasoning, c.answer)
		}
	}
	if r, a, found := (Thinking{}).Split(" x"); r != "" || a != " x" || found {
		t.Errorf("disabled Split changed the text: %q %q %v", r, a, found)
	}
}

// TestThinkingCount counts tokens around the last think-end id.
func TestThinkingCount(t *testing.T) {
	th := Thinking{EndToken: "</think>", EndTokenID: 7, HasID: true}
	if r, a, ok := th.Count([]int32{1, 7, 2, 7, 3, 4}); !ok || r != 4 || a != 2 {
		t.Errorf("Count = %d, %d, %v; want 4, 2, true", r, a, ok)
	}
	if r, a, ok := th.Count([]int32{1, 2}); !ok || r != 0 || a != 2 {
		t.Errorf("Count without the token = %d, %d, %v; want 0, 2, true", r, a, ok)
	}
	if _, _, ok := (Thinking{EndToken: "</think>"}).Count([]int32{1}); ok {
		t.Error("Count without the token's id reported counts")
	}
}
