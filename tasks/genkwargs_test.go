package tasks

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

func TestParseGenKwargs(t *testing.T) {
	for in, want := range map[string]map[string]any{
		"":                                   nil,
		"temperature=0.7,do_sample=true":     {"temperature": 0.7, "do_sample": true},
		" max_gen_toks = 32 , until=stop ":   {"max_gen_toks": 32, "until": "stop"},
		`{"max_gen_toks": 40, "top_p": 0.9}`: {"max_gen_toks": 40, "top_p": 0.9}, // 40 stays an int (Python's json)
		// lm-eval's documented example: commas inside the list do not split.
		`max_new_tokens=12,until=["e"," the","\n"]`: {"max_new_tokens": 12, "until": []any{"e", " the", "\n"}},
		`until='a,b',temperature=0`:                 {"until": "a,b", "temperature": 0},
	} {
		got, err := ParseGenKwargs(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseGenKwargs(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	for _, bad := range []string{"temperature", "=3", `{"a": `} {
		if _, err := ParseGenKwargs(bad); !errs.IsBadInput(err) {
			t.Errorf("ParseGenKwargs(%q) = %v, want bad input", bad, err)
		}
	}
}

// TestParseGenKwargsChecks: unknown keys name the closest known one, keys
// transformers has but goeval cannot honour say so, and values out of range
// are bad input.
func TestParseGenKwargsChecks(t *testing.T) {
	for in, want := range map[string]string{
		"temprature=0.7":               `unknown key "temprature": did you mean "temperature"?`,
		"max_gen=5":                    `unknown key "max_gen": did you mean "max_gen_toks"?`,
		"seed=3":                       `unknown key "seed" (goeval honours until, max_gen_toks`,
		"num_beams=4":                  "--gen-kwargs num_beams: goeval does not support it",
		`{"repetition_penalty": 1.1}`:  "--gen-kwargs repetition_penalty: goeval does not support it",
		"max_gen_toks=0":               "--gen-kwargs max_gen_toks must be ≥ 1",
		"max_gen_toks=-3":              "--gen-kwargs max_gen_toks must be ≥ 1",
		"max_new_tokens=2.5":           "--gen-kwargs max_new_tokens must be ≥ 1",
		"max_gen_toks=true":            "--gen-kwargs max_gen_toks must be ≥ 1",
		"temperature=-1":               "temperature must be a number ≥ 0",
		"temperature=hot":              "temperature must be a number ≥ 0",
		"top_p=0":                      "top_p must be in (0, 1]",
		"top_k=1.5":                    "top_k must be an integer ≥ 0",
		"do_sample=1":                  "do_sample must be true or false",
		"until=5":                      "until must be a string or a list of strings, got a number",
		`{"until": ["a", 1]}`:          "until must be a string or a list of strings",
		"do_sample=true":               "do_sample=true needs temperature > 0",
		"do_sample=true,temperature=0": "do_sample=true needs temperature > 0",
	} {
		got, err := ParseGenKwargs(in)
		if !errs.IsBadInput(err) || !strings.Contains(err.Error(), want) || got != nil {
			t.Errorf("ParseGenKwargs(%q) = %v, %v; want bad input containing %q", in, got, err, want)
		}
	}
	for _, ok := range []string{"max_gen_toks=1", `{"until": ["a", "b"], "max_gen_toks": 40.0}`, "do_sample=true,temperature=0.7,top_p=0.9,top_k=40"} {
		if _, err := ParseGenKwargs(ok); err != nil {
			t.Errorf("ParseGenKwargs(%q) = %v, want no error", ok, err)
		}
	}
}

func TestGenKwargsWarnings(t *testing.T) {
	for in, want := range map[string]string{
		"top_k=5":                                "--gen-kwargs top_k ignored: decoding is greedy without do_sample=true",
		"temperature=0.7,top_p=0.9":              "--gen-kwargs temperature, top_p ignored: decoding is greedy without do_sample=true",
		"do_sample=false,top_k=5":                "--gen-kwargs top_k ignored",
		"temperature=0":                          "",
		"do_sample=true,temperature=0.7,top_k=5": "",
		"max_gen_toks=8":                         "",
	} {
		kw, err := ParseGenKwargs(in)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(GenKwargsWarnings(kw), "|")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("GenKwargsWarnings(%q) = %q, want %q", in, got, want)
		}
	}
}
