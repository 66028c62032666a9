package tasks

import (
	"fmt"
	"strconv"

	"github.com/goeval/goeval/internal/py"
)

// str returns the string field key of d.
func str(d Doc, key string) (string, error) {
	v, ok := d[key]
	if !ok {
		return "", fmt.Errorf("field %q missing", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("field %q is %T, want a string", key, v)
	}
	return s, nil
}

// integer returns the integer field key of d (int64 in docs).
func integer(d Doc, key string) (int, error) {
	v, ok := d[key]
	if !ok {
		return 0, fmt.Errorf("field %q missing", key)
	}
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case int:
		return x, nil
	}
	return 0, fmt.Errorf("field %q is %T, want an integer", key, v)
}

// strList returns a list-of-strings field ([]any of string in docs).
func strList(v any, what string) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d] is %T, want a string", what, i, e)
			}
			out[i] = s
		}
		return out, nil
	case nil:
		return nil, fmt.Errorf("%s missing", what)
	}
	return nil, fmt.Errorf("%s is %T, want a list of strings", what, v)
}

// sub returns the struct field key of d.
func sub(d Doc, key string) (map[string]any, error) {
	m, ok := d[key].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("field %q is %T, want a struct", key, d[key])
	}
	return m, nil
}

// isDigit is Python str.isdigit for ASCII-or-Unicode decimal digits.
func isDigit(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// index returns the position of x in list (Python list.index).
func index(list []string, x, what string) (int, error) {
	for i, v := range list {
		if v == x {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s %q is not one of %q", what, x, list)
}

// pyInt is Python int(s) for a plain decimal string (surrounding
// whitespace and a sign allowed).
func pyInt(s string) (int, bool) {
	i, err := strconv.Atoi(py.Strip(s))
	return i, err == nil
}

func errLabel(l string) error { return fmt.Errorf("label %q is not an integer", l) }
