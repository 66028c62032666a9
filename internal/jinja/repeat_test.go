package jinja

import (
	"strings"
	"testing"
	"time"

	"github.com/nikolalohinski/gonja/v2/builtins"
	jcfg "github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
)

func render(t *testing.T, src string) (string, error) {
	t.Helper()
	env := &exec.Environment{Context: exec.EmptyContext().Update(builtins.GlobalFunctions), Filters: builtins.Filters,
		Tests: builtins.Tests, ControlStructures: ControlStructures, Methods: builtins.Methods}
	c := &Cache{Prefix: "test"}
	tpl, err := c.Parse(src, jcfg.New(), env, nil)
	if err != nil {
		return "", err
	}
	return tpl.ExecuteToString(exec.NewContext(map[string]any{"n": 3, GuardKey: NewGuard()}))
}

// TestRepeatBounded: string repetition works as Jinja's up to the bound and
// fails fast beyond it (a fuzzed chat template asked for 700 MB); numbers
// still multiply, and repetitions nested in control structures are guarded.
func TestRepeatBounded(t *testing.T) {
	for src, want := range map[string]string{
		`{{ "ab" * 3 }}`:            "ababab",
		`{{ "ab" * n }}`:            "ababab",
		`{{ ("a" * 2) * 2 }}`:       "aaaa",
		`{{ 2 * 3 }}|{{ 1.5 * 2 }}`: "6|3.0",
		`{% for i in range(2) %}{{ "-" * (i + 1) }}{% endfor %}`: "---",
	} {
		if got, err := render(t, src); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", src, got, err, want)
		}
	}
	for _, src := range []string{`{{ "0" * 700070000 }}`, `{% if true %}{% set x = "ab" * 9000000 %}{{ x }}{% endif %}`} {
		start := time.Now()
		_, err := render(t, src)
		if err == nil || !strings.Contains(err.Error(), "string repetition too big") || time.Since(start) > time.Second {
			t.Errorf("%s: %v after %v, want a fast 'too big' error", src, err, time.Since(start))
		}
	}
}
