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

// TestThinkingSplitIDs cuts ids as HFLM.generate_until does with an
// integer think_end_token: after the last id 7 (a special token decoding
// drops), not at the text "</think>" that other tokens spell; the rest
// decoded, left-stripped, then cut at the first stop string (the
// request's or the LM's own); without the id, all ids decoded and
// left-stripped.
func TestThinkingSplitIDs(t *testing.T) {
	pieces := map[int32]string{1: "<think>", 2: "a", 3: "</", 4: "think>", 5: "\n ", 6: "b", 8: "\n\n", 9: "<eos>", 7: "</think>"}
	decode := func(ids []int32) string {
		var s string
		for _, id := range ids {
			if id != 7 { // special: skipped
				s += pieces[id]
			}
		}
		return s
	}
	th := Thinking{EndToken: "</think>", EndTokenID: 7, HasID: true, ByID: true, Decode: decode, Stops: []string{"<eos>"}}
	cases := []struct {
		ids               []int32
		until             []string
		reasoning, answer string
		found             bool
	}{
		{[]int32{1, 2, 7, 2, 7, 5, 6, 3, 4, 6}, nil, "<think>aa", "b</think>b", true},
		{[]int32{1, 2, 7, 5, 6, 8, 6}, []string{"\n\n"}, "<think>a", "b", true},
		{[]int32{1, 2, 7, 6, 9, 6}, nil, "<think>a", "b", true},
		{[]int32{5, 2, 3, 4, 6}, nil, "", "a</think>b", false},
		{[]int32{2, 7}, nil, "a", "", true},
	}
	for _, c := range cases {
		r, a, found := th.SplitIDs(c.ids, c.until)
		if r != c.reasoning || a != c.answer || found != c.found {
			t.Errorf("SplitIDs(%v, %q) = %q, %q, %v; want %q, %q, %v", c.ids, c.until, r, a, found, c.reasoning, c.answer, c.found)
		}
	}
	// The same generation split as text cuts at the spelled "</think>".
	if _, a, _ := th.Split(decode([]int32{1, 2, 7, 5, 6, 3, 4, 6})); a != "b" {
		t.Errorf("text split: answer %q, want b (the spelled token)", a)
	}
}
