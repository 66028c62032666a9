package report

import (
	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
)

// groupPreorder is lm-eval's group order (the one "group_subtasks" is
// written in): each group before the groups it contains, depth first, the
// top-level groups in their order in groups (which lists children first).
func groupPreorder(groups []*goeval.GroupResult) []*goeval.GroupResult {
	byName, isChild := map[string]*goeval.GroupResult{}, map[string]bool{}
	for _, g := range groups {
		byName[g.Name] = g
		for _, c := range g.Subtasks {
			isChild[c] = true
		}
	}
	var out []*goeval.GroupResult
	seen := map[string]bool{}
	var visit func(g *goeval.GroupResult)
	visit = func(g *goeval.GroupResult) {
		if seen[g.Name] {
			return
		}
		seen[g.Name] = true
		out = append(out, g)
		for _, c := range g.Subtasks {
			if cg, ok := byName[c]; ok {
				visit(cg)
			}
		}
	}
	for _, g := range groups {
		if !isChild[g.Name] {
			visit(g)
		}
	}
	return out
}

// propagateGroupMeta gives each group, in lm-eval's order and in one pass
// as lm-eval's _propagate_num_fewshot and _propagate_higher_is_better do,
// the n-shot its children agree on and their merged higher_is_better (nil
// where they disagree). A group of groups comes before its children, so
// it gets neither: lm-eval writes no n-shot or higher_is_better for mmlu.
func propagateGroupMeta(groups []*goeval.GroupResult, m *taskMeta) {
	for _, g := range groups {
		shots := map[any]bool{}
		hib := py.NewMap[any]()
		for _, c := range g.Subtasks {
			if n, ok := m.shots[c]; ok {
				shots[n] = true
			}
			ch, ok := m.hib[c].(*py.Map[any])
			if !ok {
				continue
			}
			for _, k := range ch.Keys() {
				v := ch.Value(k)
				if old, seen := hib.Get(k); !seen {
					hib.Set(k, v)
				} else if old != nil && old != v {
					hib.Set(k, nil)
				}
			}
		}
		if len(shots) == 1 {
			for n := range shots {
				m.shots[g.Name] = n
			}
		}
		if hib.Len() > 0 {
			m.hib[g.Name] = hib
		}
	}
}
