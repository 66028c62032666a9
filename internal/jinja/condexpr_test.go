package jinja

import (
	"testing"

	"github.com/nikolalohinski/gonja/v2/config"
)

// TestConditionalsRewrite pins the rewritten text: only bracketed
// conditional expressions change (nested and else-less ones included),
// the rest of the template keeps its bytes, and templates without one —
// top-level conditionals, for-loop filters, strings holding "if", lexing
// errors — come back unchanged.
func TestConditionalsRewrite(t *testing.T) {
	cfg := config.New()
	for _, c := range []struct{ src, want string }{
		{`{{ 'a' + (p if loop.first else "") }}`, `{{ 'a' + (((loop.first) and [(p)] or [("")])[0]) }}`},
		{"x\r\n{{- f(a, k=1 if c else 2) -}}\n", "x\n{{- f(a, k=((c) and [(1)] or [(2)])[0]) -}}\n"},
		{`{{ [a if b else c if d else e] }}`, `{{ [((b) and [(a)] or [(((d) and [(c)] or [(e)])[0])])[0]] }}`},
		{`{{ (a if b) }}`, `{{ (((b) and [(a)] or [(` + undefinedName + `)])[0]) }}`},
		{`{{ {'k': (x if y else z)} }}`, `{{ {'k': (((y) and [(x)] or [(z)])[0])} }}`},
		{"{{ a if b else c }}\r\n{% for m in ms if m %}{{ m }}{% endfor %}", "{{ a if b else c }}\r\n{% for m in ms if m %}{{ m }}{% endfor %}"},
		{`{{ f('a if b else c') }}`, `{{ f('a if b else c') }}`},
		{`{{ (a if b else c }}`, `{{ (a if b else c }}`},
	} {
		if got := Conditionals(c.src, cfg); got != c.want {
			t.Errorf("Conditionals(%q)\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}
