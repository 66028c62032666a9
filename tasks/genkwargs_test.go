package tasks

import (
	"reflect"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

func TestParseGenKwargs(t *testing.T) {
	for in, want := range map[string]map[string]any{
		"":                                   nil,
		"temperature=0.7,do_sample=true":     {"temperature": 0.7, "do_sample": true},
		" max_gen_toks = 32 , until=stop ":   {"max_gen_toks": 32, "until": "stop"},
		`{"max_gen_toks": 40, "top_p": 0.9}`: {"max_gen_toks": 40.0, "top_p": 0.9},
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
