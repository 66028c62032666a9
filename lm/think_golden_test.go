package lm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestThinkingSplitLMEval cuts reasoning generations as lm-eval 0.4.13's
// postprocess_generated_text does (parity/reason/think_golden.py): the
// answer after the last think-end token, left-stripped, then cut at the
// first stop string.
func TestThinkingSplitLMEval(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "think_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text          string   `json:"text"`
		ThinkEndToken string   `json:"think_end_token"`
		Until         []string `json:"until"`
		Answer        string   `json:"answer"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		reasoning, answer, _ := Thinking{EndToken: c.ThinkEndToken}.Split(c.Text)
		if reasoning+answer != c.Text {
			t.Errorf("case %d: reasoning %q + answer %q is not the text %q", i, reasoning, answer, c.Text)
		}
		if j := FirstStop(answer, c.Until); j >= 0 {
			answer = answer[:j]
		}
		if answer != c.Answer {
			t.Errorf("case %d (%q, until %q): answer %q, lm-eval %q", i, c.ThinkEndToken, c.Until, answer, c.Answer)
		}
	}
	if len(cases) < 100 {
		t.Fatalf("%d golden cases, want >= 100", len(cases))
	}
}
