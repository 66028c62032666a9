package goeval

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// ExpandModels reads a model list as a checkpoint sweep: comma-separated
// entries, each a directory, "fake", or a glob (sorted matches, only
// directories). Duplicates are dropped; order is kept. Errors are bad
// input naming the entry (the caller says where the list came from).
func ExpandModels(spec string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.ContainsAny(part, "*?[") {
			add(part)
			continue
		}
		matches, err := filepath.Glob(part)
		if err != nil {
			return nil, errs.BadInputf("%q: bad glob pattern: %v", part, err)
		}
		sort.Strings(matches)
		n := 0
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.IsDir() {
				add(m)
				n++
			}
		}
		if n == 0 {
			return nil, errs.BadInputf("%q matches no checkpoint directory", part)
		}
	}
	if len(out) == 0 {
		return nil, errs.BadInputf("%q names no model", spec)
	}
	return out, nil
}
