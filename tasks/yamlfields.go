package tasks

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/goeval/goeval/internal/py"
)

// docField is a doc_to_text / doc_to_target / doc_to_choice value of a task
// YAML, resolved per document as lm-eval's ConfigurableTask does: a name
// of a document field gives that field, any other string is a Jinja
// template, and ints, lists and mappings are literals; a hook is a Go
// function registered for a !function name.
type docField struct {
	raw   any                        // string, int, []any, *py.Map[any]
	hook  func(Doc) (any, error)     // set for !function values
	order func() map[string][]string // the dataset's field order (renderJinja)
}

func (f docField) fieldOrder() map[string][]string {
	if f.order == nil {
		return nil
	}
	return f.order()
}

func (f docField) set() bool { return f.raw != nil || f.hook != nil }

// value returns the field, the hook's result or the rendered template
// (ok=false: a template, rendered into s).
func (f docField) fieldOrTemplate(d Doc) (v any, s string, isField bool, err error) {
	if f.hook != nil {
		v, err = f.hook(d)
		return v, "", true, err
	}
	src := f.raw.(string)
	if fv, ok := d[src]; ok {
		return fv, "", true, nil
	}
	s, err = renderJinja(src, d, f.fieldOrder())
	return nil, s, false, err
}

// text is doc_to_text: a string, or an int (the gold context index of a
// multiple-input task) when a template renders digits and the task has
// choices.
func (f docField) text(d Doc, hasChoices bool) (any, error) {
	if n, ok := f.raw.(int); ok {
		return n, nil
	}
	v, s, isField, err := f.fieldOrTemplate(d)
	if err != nil || isField {
		return docInts(v), err
	}
	if hasChoices && isDigits(s) {
		return digitsInt(s)
	}
	return s, nil
}

// target is doc_to_target: an int, a string, or a list (multiple targets).
func (f docField) target(d Doc, hasChoices bool) (any, error) {
	switch x := f.raw.(type) {
	case int:
		return x, nil
	case []any:
		return x, nil
	}
	v, s, isField, err := f.fieldOrTemplate(d)
	if err != nil || isField {
		return docInts(v), err
	}
	switch {
	case hasChoices && isDigits(s):
		return digitsInt(s)
	case len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']':
		if l, err := py.LiteralEval(s); err == nil {
			return docInts(l), nil
		}
	}
	return s, nil
}

// choices is doc_to_choice: a list of strings.
func (f docField) choices(d Doc) ([]string, error) {
	var v any
	switch x := f.raw.(type) {
	case []any:
		v = x
	case *py.Map[any]:
		var vals []any
		for _, k := range x.Keys() {
			vals = append(vals, x.Value(k))
		}
		v = vals
	default:
		fv, s, isField, err := f.fieldOrTemplate(d)
		if err != nil {
			return nil, err
		}
		v = fv
		if !isField {
			if v, err = py.LiteralEval(s); err != nil {
				return nil, fmt.Errorf("doc_to_choice rendered %q, which is not a Python list literal: %v", s, err)
			}
		}
	}
	l, ok := v.([]any)
	if !ok {
		if ss, ok := v.([]string); ok {
			return ss, nil
		}
		return nil, fmt.Errorf("doc_to_choice gave %s, want a list of strings", yamlKind(v))
	}
	out := make([]string, len(l))
	for i, c := range l {
		s, ok := c.(string)
		if !ok {
			return nil, fmt.Errorf("doc_to_choice item %d is %s, want a string", i, yamlKind(c))
		}
		out[i] = s
	}
	return out, nil
}

// resolveField is lm-eval's resolve_field for description and gen_prefix:
// the document's field of that name, else the rendered template.
func resolveField(src string, d Doc, order map[string][]string) (string, error) {
	if src == "" {
		return "", nil
	}
	if v, ok := d[src]; ok {
		return py.StrValue(v)
	}
	return renderJinja(src, d, order)
}

// docInts turns the int64s documents carry into int, inside lists too;
// other values (bools included: Python ints that print as True/False) are
// returned as they are.
func docInts(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = docInts(e)
		}
		return out
	}
	return v
}

// isDigits is Python's str.isdigit (non-empty, every rune a digit).
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) && !unicode.Is(unicode.No, r) {
			return false
		}
	}
	return true
}

// digitsInt is ast.literal_eval of an isdigit() string: ASCII digits parse
// (leading zeros are a syntax error, as in Python, except "0…0").
func digitsInt(s string) (any, error) {
	if strings.TrimLeft(s, "0123456789") != "" || (len(s) > 1 && s[0] == '0' && strings.Trim(s, "0") != "") {
		return nil, fmt.Errorf("template rendered %q: not a Python int literal", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, fmt.Errorf("template rendered %q: %v", s, err)
	}
	return n, nil
}
