package tasks

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// TestMultiChoiceRegexGolden compares the multi_choice_regex filter with
// lm-eval's MultiChoiceRegexFilter (testdata/mcregex/golden.json, written by
// parity/lmeval/mcregex_golden.py).
func TestMultiChoiceRegexGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/mcregex/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		RegexPattern string `json:"regex_pattern"`
		Cases        []struct {
			Choices []string
			Resp    string
			Kwargs  map[string]any
			Out     string
		}
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 10 {
		t.Fatalf("%d cases", len(g.Cases))
	}
	for i, c := range g.Cases {
		m := py.NewMap[any]()
		m.Set("function", "multi_choice_regex")
		m.Set("regex_pattern", g.RegexPattern)
		for k, v := range c.Kwargs {
			if f, ok := v.(float64); ok {
				v = int(f)
			}
			m.Set(k, v)
		}
		r := &cfgReader{c: yamlConfig{m: py.NewMap[any](), path: "test.yaml"}}
		step := r.goFilterStep("filter_list[0].filter[0]", m)
		if r.err != nil || step == nil {
			t.Fatalf("case %d: %v", i, r.err)
		}
		choices := make([]any, len(c.Choices))
		for j, s := range c.Choices {
			choices[j] = s
		}
		got, err := step(c.Resp, Doc{"choices": choices})
		if err != nil || got != c.Out {
			t.Errorf("case %d %q %v: got %q (err %v), lm-eval %q", i, c.Resp, c.Kwargs, got, err, c.Out)
		}
	}
}
