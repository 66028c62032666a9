package ifeval

import (
	"fmt"
	"math"

	"github.com/goeval/goeval/internal/py"
)

// args reads one instruction's keyword arguments, keeping the first error.
type args struct {
	kw  Kwargs
	id  string
	err error
}

func (a *args) failf(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("ifeval: instruction %s: "+format, append([]any{a.id}, v...)...)
	}
}

// random fails for an argument lm-eval would draw at random.
func (a *args) random(key string) {
	a.failf("argument %s is missing, so lm-eval would draw it at random", key)
}

// num is a non-negative integer argument.
func (a *args) num(key string) int {
	v, ok := a.kw[key]
	if !ok {
		a.random(key)
		return 0
	}
	var n int
	switch x := v.(type) {
	case int:
		n = x
	case int64:
		n = int(x)
	case float64:
		if x != math.Trunc(x) {
			a.failf("argument %s=%v is not an integer", key, x)
		}
		n = int(x)
	default:
		a.failf("argument %s is a %T, want an integer", key, v)
	}
	if n < 0 {
		a.random(key)
	}
	return n
}

// str is a string argument (stripped when strip is set).
func (a *args) str(key string, doStrip bool) string {
	v, ok := a.kw[key]
	if !ok {
		a.random(key)
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		a.failf("argument %s is a %T, want a string", key, v)
		return ""
	}
	if doStrip {
		s = py.Strip(s)
	}
	return s
}

// relation is a comparison argument: "less than" (true) or "at least".
func (a *args) relation(key string) (less bool) {
	s := a.str(key, false)
	switch s {
	case "less than":
		return true
	case "at least":
		return false
	}
	if a.err == nil {
		a.failf("relation %q is not supported (ValueError in lm-eval)", s)
	}
	return false
}

// strs is a list-of-strings argument.
func (a *args) strs(key string) []string {
	v, ok := a.kw[key]
	if !ok {
		a.random(key)
		return nil
	}
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, isStr := e.(string)
			if !isStr {
				a.failf("argument %s[%d] is a %T, want a string", key, i, e)
			}
			out[i] = s
		}
		return out
	}
	a.failf("argument %s is a %T, want a list of strings", key, v)
	return nil
}

// compare is the relation's verdict on count against threshold.
func compare(less bool, count, threshold int) bool {
	if less {
		return count < threshold
	}
	return count >= threshold
}
