package goeval

import (
	"sort"

	"github.com/goeval/goeval/internal/py"
)

// orderedDoc converts a processed doc into a py.Map in the dataset's
// column order (keys: tasks.Instance.DocKeys, "" for the top level, dotted
// paths for nested structs, lists looked through), so the samples file logs
// it as lm-eval does and doc_hash matches. Keys missing from the order
// follow, sorted.
func orderedDoc(v any, path string, keys map[string][]string) any {
	switch x := v.(type) {
	case map[string]any:
		m := py.NewMap[any]()
		for _, k := range keyOrder(x, keys[path]) {
			m.Set(k, orderedDoc(x[k], joinKey(path, k), keys))
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = orderedDoc(e, path, keys)
		}
		return out
	}
	return v
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

func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
