package tasks

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/goeval/goeval/internal/py"
)

// Python str and list methods for task templates. gonja's own versions
// differ from Python's where lm-eval templates use them (strip() without
// arguments fails, replace() requires a count, list.index is missing), so
// these replace them; methods not listed here are gonja's.

type strMethod func(s string, args []any) (any, error)

var strMethods = map[string]strMethod{
	"strip":      func(s string, a []any) (any, error) { return stripArgs(s, a, true, true) },
	"lstrip":     func(s string, a []any) (any, error) { return stripArgs(s, a, true, false) },
	"rstrip":     func(s string, a []any) (any, error) { return stripArgs(s, a, false, true) },
	"split":      func(s string, a []any) (any, error) { return splitArgs(s, a, false) },
	"rsplit":     func(s string, a []any) (any, error) { return splitArgs(s, a, true) },
	"replace":    replaceArgs,
	"count":      func(s string, a []any) (any, error) { return findArgs("count", s, a) },
	"find":       func(s string, a []any) (any, error) { return findArgs("find", s, a) },
	"index":      func(s string, a []any) (any, error) { return findArgs("index", s, a) },
	"startswith": func(s string, a []any) (any, error) { return affixArgs(s, a, strings.HasPrefix) },
	"endswith":   func(s string, a []any) (any, error) { return affixArgs(s, a, strings.HasSuffix) },
	"upper":      noArgs(py.Upper),
	"lower":      noArgs(py.Lower),
	"capitalize": noArgs(py.Capitalize),
	"join":       joinArgs,
}

func noArgs(f func(string) string) strMethod {
	return func(s string, a []any) (any, error) {
		if len(a) != 0 {
			return nil, fmt.Errorf("takes no arguments (%d given)", len(a))
		}
		return f(s), nil
	}
}

// pyMethods is gonja's method table with strMethods and list.index/count
// in place of gonja's.
func pyMethods() exec.Methods {
	m := builtins.Methods
	str := map[string]exec.Method[string]{}
	for _, name := range gonjaStrMethods {
		if f, ok := m.Str.Get(name); ok {
			str[name] = f
		}
	}
	for name, f := range strMethods {
		str[name] = func(self string, _ *exec.Value, va *exec.VarArgs) (any, error) {
			if len(va.KwArgs) > 0 {
				return nil, fmt.Errorf("str.%s: keyword arguments are not supported", name)
			}
			return f(self, argValues(va))
		}
	}
	list := map[string]exec.Method[[]any]{
		"index": func(self []any, _ *exec.Value, va *exec.VarArgs) (any, error) {
			x, err := oneArg("list.index", va)
			if err != nil {
				return nil, err
			}
			for i, e := range self {
				if pyEqual(e, x) {
					return i, nil
				}
			}
			s, _ := py.ReprValue(x)
			return nil, fmt.Errorf("list.index(%s): value is not in the list", s)
		},
		"count": func(self []any, _ *exec.Value, va *exec.VarArgs) (any, error) {
			x, err := oneArg("list.count", va)
			n := 0
			for _, e := range self {
				if pyEqual(e, x) {
					n++
				}
			}
			return n, err
		},
	}
	for _, name := range []string{"append", "reverse", "copy"} {
		if f, ok := m.List.Get(name); ok {
			list[name] = f
		}
	}
	m.Str, m.List, m.Dict = exec.NewMethodSet(str), exec.NewMethodSet(list), exec.NewMethodSet(dictMethods(m.Dict))
	return m
}

// dictMethods are keys, values, items and get in the mapping's own order
// (a document's mappings are ordered Dicts: jinjaValue); gonja's others
// are kept.
func dictMethods(gonja *exec.MethodSet[map[string]any]) map[string]exec.Method[map[string]any] {
	out := map[string]exec.Method[map[string]any]{}
	for _, name := range []string{"pop", "setdefault", "update", "copy", "clear"} {
		if f, ok := gonja.Get(name); ok {
			out[name] = f
		}
	}
	pairs := func(self map[string]any, v *exec.Value) [][2]any {
		var ps [][2]any
		if d, ok := v.Interface().(exec.Dict); ok {
			for _, p := range d.Pairs {
				ps = append(ps, [2]any{p.Key.String(), goValue(p.Value)})
			}
			return ps
		}
		keys := make([]string, 0, len(self))
		for k := range self {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps = append(ps, [2]any{k, self[k]})
		}
		return ps
	}
	view := func(pick func(p [2]any) any) exec.Method[map[string]any] {
		return func(self map[string]any, v *exec.Value, va *exec.VarArgs) (any, error) {
			if len(va.Args)+len(va.KwArgs) > 0 {
				return nil, fmt.Errorf("takes no arguments")
			}
			var out []any
			for _, p := range pairs(self, v) {
				out = append(out, pick(p))
			}
			return out, nil
		}
	}
	out["keys"] = view(func(p [2]any) any { return p[0] })
	out["values"] = view(func(p [2]any) any { return p[1] })
	out["items"] = view(func(p [2]any) any { return []any{p[0], p[1]} })
	out["get"] = func(self map[string]any, v *exec.Value, va *exec.VarArgs) (any, error) {
		if len(va.Args) < 1 || len(va.Args) > 2 || len(va.KwArgs) > 0 {
			return nil, fmt.Errorf("get takes a key and an optional default")
		}
		k := goValue(va.Args[0])
		for _, p := range pairs(self, v) {
			if pyEqual(p[0], k) {
				return p[1], nil
			}
		}
		if len(va.Args) == 2 {
			return goValue(va.Args[1]), nil
		}
		return nil, nil
	}
	return out
}

// gonjaStrMethods are the str methods gonja v2.9 implements.
var gonjaStrMethods = []string{"capwords", "casefold", "center", "encode", "expandtabs", "format",
	"format_map", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "islower", "isnumeric",
	"isprintable", "isspace", "istitle", "isupper", "ljust", "partition", "removeprefix", "removesuffix",
	"rfind", "rjust", "rpartition", "splitlines", "swapcase", "title", "zfill"}

func argValues(va *exec.VarArgs) []any {
	out := make([]any, len(va.Args))
	for i, a := range va.Args {
		out[i] = goValue(a)
	}
	return out
}

func oneArg(name string, va *exec.VarArgs) (any, error) {
	if len(va.Args) != 1 || len(va.KwArgs) != 0 {
		return nil, fmt.Errorf("%s takes exactly one argument", name)
	}
	return goValue(va.Args[0]), nil
}

// pyEqual is Python's == for template values (ints and floats compare by
// value).
func pyEqual(a, b any) bool {
	if fa, ok := numeric(a); ok {
		fb, ok := numeric(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func numeric(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		return 0, false
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	}
	return 0, false
}

func strArg(name string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a str, not %T", name, v)
	}
	return s, nil
}

func intArg(name string, v any) (int, error) {
	if f, ok := numeric(v); ok && f == float64(int(f)) {
		return int(f), nil
	}
	return 0, fmt.Errorf("%s must be an int, not %T", name, v)
}

func stripArgs(s string, a []any, left, right bool) (any, error) {
	if len(a) > 1 {
		return nil, fmt.Errorf("strip takes at most 1 argument (%d given)", len(a))
	}
	in := py.IsSpace
	if len(a) == 1 && a[0] != nil {
		chars, err := strArg("strip's chars", a[0])
		if err != nil {
			return nil, err
		}
		in = func(r rune) bool { return strings.ContainsRune(chars, r) }
	}
	if left {
		s = strings.TrimLeftFunc(s, in)
	}
	if right {
		s = strings.TrimRightFunc(s, in)
	}
	return s, nil
}

// splitArgs is str.split / str.rsplit (sep=None, maxsplit=-1).
func splitArgs(s string, a []any, fromRight bool) (any, error) {
	if len(a) > 2 {
		return nil, fmt.Errorf("split takes at most 2 arguments (%d given)", len(a))
	}
	maxsplit := -1
	if len(a) == 2 {
		n, err := intArg("maxsplit", a[1])
		if err != nil {
			return nil, err
		}
		maxsplit = n
	}
	var parts []string
	if len(a) == 0 || a[0] == nil {
		parts = splitSpace(s, maxsplit, fromRight)
	} else {
		sep, err := strArg("sep", a[0])
		if err != nil {
			return nil, err
		}
		if sep == "" {
			return nil, fmt.Errorf("split: empty separator")
		}
		parts = splitSep(s, sep, maxsplit, fromRight)
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

func splitSep(s, sep string, maxsplit int, fromRight bool) []string {
	if maxsplit < 0 {
		return strings.Split(s, sep)
	}
	if !fromRight {
		return strings.SplitN(s, sep, maxsplit+1)
	}
	var rev []string
	for len(rev) < maxsplit {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			break
		}
		rev = append(rev, s[i+len(sep):])
		s = s[:i]
	}
	out := []string{s}
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

// splitSpace is split() on runs of whitespace: no empty fields; after
// maxsplit splits the rest is one field (its inner whitespace kept).
func splitSpace(s string, maxsplit int, fromRight bool) []string {
	if maxsplit < 0 {
		return py.Split(s)
	}
	var out []string
	if !fromRight {
		for s = strings.TrimLeftFunc(s, py.IsSpace); s != "" && len(out) < maxsplit; s = strings.TrimLeftFunc(s, py.IsSpace) {
			i := strings.IndexFunc(s, py.IsSpace)
			if i < 0 {
				break
			}
			out = append(out, s[:i])
			s = s[i:]
		}
		if s != "" {
			out = append(out, s)
		}
		return out
	}
	var rev []string
	for s = strings.TrimRightFunc(s, py.IsSpace); s != "" && len(rev) < maxsplit; s = strings.TrimRightFunc(s, py.IsSpace) {
		i := strings.LastIndexFunc(s, py.IsSpace)
		if i < 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		rev = append(rev, s[i+size:])
		s = s[:i]
	}
	if s != "" {
		out = append(out, s)
	}
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

func replaceArgs(s string, a []any) (any, error) {
	if len(a) < 2 || len(a) > 3 {
		return nil, fmt.Errorf("replace takes 2 or 3 arguments (%d given)", len(a))
	}
	old, err := strArg("replace's old", a[0])
	if err != nil {
		return nil, err
	}
	repl, err := strArg("replace's new", a[1])
	if err != nil {
		return nil, err
	}
	n := -1
	if len(a) == 3 {
		if n, err = intArg("replace's count", a[2]); err != nil {
			return nil, err
		}
	}
	return strings.Replace(s, old, repl, n), nil
}

// findArgs is str.count / find / index over the whole string (start and
// end arguments are not supported); offsets are in code points.
func findArgs(name, s string, a []any) (any, error) {
	if len(a) != 1 {
		return nil, fmt.Errorf("str.%s: only the one-argument form is supported", name)
	}
	sub, err := strArg(name+"'s argument", a[0])
	if err != nil {
		return nil, err
	}
	if name == "count" {
		if sub == "" {
			return utf8.RuneCountInString(s) + 1, nil
		}
		return strings.Count(s, sub), nil
	}
	i := strings.Index(s, sub)
	if i < 0 {
		if name == "index" {
			return nil, fmt.Errorf("str.index(%s): substring not found", py.ReprString(sub))
		}
		return -1, nil
	}
	return utf8.RuneCountInString(s[:i]), nil
}

func affixArgs(s string, a []any, has func(string, string) bool) (any, error) {
	if len(a) != 1 {
		return nil, fmt.Errorf("startswith/endswith: only the one-argument form is supported")
	}
	opts := []any{a[0]}
	if l, ok := a[0].([]any); ok {
		opts = l
	}
	for _, o := range opts {
		x, err := strArg("startswith/endswith's argument", o)
		if err != nil {
			return nil, err
		}
		if has(s, x) {
			return true, nil
		}
	}
	return false, nil
}

func joinArgs(s string, a []any) (any, error) {
	if len(a) != 1 {
		return nil, fmt.Errorf("join takes exactly one argument (%d given)", len(a))
	}
	items, ok := a[0].([]any)
	if !ok {
		return nil, fmt.Errorf("join expects a list, not %T", a[0])
	}
	parts := make([]string, len(items))
	for i, it := range items {
		x, err := strArg(fmt.Sprintf("join: item %d", i), it)
		if err != nil {
			return nil, err
		}
		parts[i] = x
	}
	return strings.Join(parts, s), nil
}
