package tasks

import (
	"sort"

	"github.com/goeval/goeval/internal/py"
)

// OrderedDoc converts a processed doc (or any value inside one) into
// *py.Map[any] objects in the dataset's column order: keys are
// Instance.DocKeys ("" for the top level, dotted paths for nested structs,
// lists looked through); keys missing from the order follow, sorted. Written
// with py.JSON it is the doc as lm-eval logs and hashes it (doc_hash).
func OrderedDoc(v any, keys map[string][]string) any { return orderedValue(v, "", keys) }

func orderedValue(v any, path string, keys map[string][]string) any {
	switch x := v.(type) {
	case map[string]any:
		m := py.NewMap[any]()
		for _, k := range keyOrder(x, keys[path]) {
			m.Set(k, orderedValue(x[k], joinPath(path, k), keys))
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = orderedValue(e, path, keys)
		}
		return out
	}
	return v
}

// LoggedGenKwargs returns a generate request's generation kwargs in the
// order lm-eval logs them in "arguments" (GenKeys, then any other keys
// sorted).
func (q Request) LoggedGenKwargs() *py.Map[any] {
	m := py.NewMap[any]()
	for _, k := range keyOrder(q.GenKwargs, q.GenKeys) {
		m.Set(k, q.GenKwargs[k])
	}
	return m
}

// keyOrder lists m's keys: those in order first (as ordered), then the rest
// sorted.
func keyOrder(m map[string]any, order []string) []string {
	out := make([]string, 0, len(m))
	seen := make(map[string]bool, len(m))
	for _, k := range order {
		if _, ok := m[k]; ok && !seen[k] {
			out = append(out, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
