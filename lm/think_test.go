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

// TestThinkingSplitIDs checks HFLM's cut for an integer think_end_token:
// the ids after the id's last occurrence decoded, left-stripped, then cut
// at the first stop string; the token's text produced by other ids does
// not cut; without the id the text is only left-stripped.
func TestThinkingSplitIDs(t *testing.T) {
	vocab := map[int32]string{1: "a", 2: "</", 3: "think>", 7: "</think>", 8: " \n", 9: "42", 10: "\n\n", 11: "b"}
	decode := func(ids []int32) string {
		var s string
		for _, id := range ids {
			s += vocab[id]
		}
		return s
	}
	th := Thinking{EndToken: "</think>", EndTokenID: 7, HasID: true, ByID: true, Decode: decode}
	cases := []struct {
		ids               []int32
		text              string // the engine's text: decoded, cut at the stop
		until             []string
		reasoning, answer string
		found             bool
	}{
		{[]int32{1, 7, 11, 7, 8, 9}, "a</think>b</think> \n42", nil, "a</think>b</think>", "42", true},
		// The answer is cut at the stop after it is stripped, as HFLM does.
		{[]int32{7, 8, 9, 10, 11}, "</think> \n42", []string{"\n\n"}, "</think>", "42", true},
		// "</" "think>" is the token's text but not its id: no cut by id.
		{[]int32{1, 2, 3, 8, 9}, "a</think> \n42", nil, "", "a</think> \n42", false},
		{[]int32{8, 9}, " \n42", nil, " \n", "42", false},
	}
	for _, c := range cases {
		r, a, found := th.SplitGenerated(GenerateResult{Text: c.text, IDs: c.ids}, c.until)
		if r != c.reasoning || a != c.answer || found != c.found {
			t.Errorf("SplitGenerated(%v) = %q, %q, %v; want %q, %q, %v", c.ids, r, a, found, c.reasoning, c.answer, c.found)
		}
	}
	// The text cut on the same generation finds "</think>" from "</" "think>".
	if _, a, _ := (Thinking{EndToken: "</think>"}).SplitGenerated(GenerateResult{Text: "a</think> \n42", IDs: []int32{1, 2, 3, 8, 9}}, nil); a != "42" {
		t.Errorf("text cut = %q, want 42", a)
	}
	// No ids (an API chat model): the token's text cuts.
	if _, a, found := th.SplitGenerated(GenerateResult{Text: "x</think>y"}, nil); a != "y" || !found {
		t.Errorf("without ids: %q %v, want y true", a, found)
	}
}
