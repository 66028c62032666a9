package goeval

import (
	"sort"

	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/tasks"
)

// aggregateGroups computes every group bottom-up (children before parents),
// each over its leaf tasks as lm-eval's Group.aggregate.
func aggregateGroups(groups []tasks.Group, trs []*TaskResult) []*GroupResult {
	byName := map[string]tasks.Group{}
	for _, g := range groups {
		byName[g.Name] = g
	}
	results := map[string]*TaskResult{}
	for _, t := range trs {
		results[t.Name] = t
	}
	var out []*GroupResult
	visited := map[string]bool{}
	var visit func(g tasks.Group)
	visit = func(g tasks.Group) {
		if visited[g.Name] {
			return
		}
		visited[g.Name] = true
		for _, s := range g.Subtasks {
			if sub, ok := byName[s]; ok {
				visit(sub)
			}
		}
		out = append(out, aggregateGroup(g, leaves(g, byName), results))
	}
	for _, g := range groups {
		if isRoot(g, groups) {
			visit(g)
		}
	}
	return out
}

func isRoot(g tasks.Group, all []tasks.Group) bool {
	for _, p := range all {
		for _, s := range p.Subtasks {
			if s == g.Name {
				return false
			}
		}
	}
	return true
}

func leaves(g tasks.Group, byName map[string]tasks.Group) []string {
	var out []string
	for _, s := range g.Subtasks {
		if sub, ok := byName[s]; ok {
			out = append(out, leaves(sub, byName)...)
		} else {
			out = append(out, s)
		}
	}
	return out
}

func aggregateGroup(g tasks.Group, leafNames []string, results map[string]*TaskResult) *GroupResult {
	gr := &GroupResult{Name: g.Name, Alias: g.Alias, Version: g.Version, Subtasks: g.Subtasks,
		Leaves: leafNames, Aggregate: g.Aggregate}
	if gr.Alias == "" {
		gr.Alias = g.Name
	}
	if gr.Version == "" {
		gr.Version = "N/A"
	}
	shots := -1
	agree := true
	for _, n := range leafNames {
		if t, ok := results[n]; ok {
			gr.SampleLen += t.SampleLen
			if shots >= 0 && t.NumFewshot != shots {
				agree = false
			}
			shots = t.NumFewshot
		}
	}
	if agree && shots >= 0 {
		gr.NumFewshot = &shots
	}
	for _, a := range g.AggregateList() {
		filters := a.Filters
		if filters == nil {
			filters = discoverFilters(a.Metric, leafNames, results)
		}
		for _, f := range filters {
			if m, ok := groupMetric(a, f, leafNames, results); ok {
				gr.setMetric(m)
			}
		}
	}
	return gr
}

// groupMetric is one metric under one filter over the leaves that
// report it (lm-eval's Group.aggregate), ok=false when none does.
func groupMetric(a tasks.AggMetric, filter string, leafNames []string, results map[string]*TaskResult) (Metric, bool) {
	var stats []metrics.SubtaskStat
	hib := true
	for _, n := range leafNames {
		t, ok := results[n]
		if !ok {
			continue
		}
		if m, ok := t.Metric(a.Metric, filter); ok {
			stats = append(stats, metrics.SubtaskStat{Value: m.Value, Stderr: m.Stderr, StderrOK: m.StderrOK, Size: t.SampleLen})
			hib = m.HigherIsBetter
		}
	}
	if len(stats) == 0 {
		return Metric{}, false
	}
	v, se, ok := metrics.GroupAggregate(stats, a.WeightBySize)
	n := 0
	for _, s := range stats {
		n += s.Size
	}
	return Metric{Name: a.Metric, Filter: filter, Value: v, Stderr: se, StderrOK: ok, HigherIsBetter: hib, N: n}, true
}

// setMetric adds m, or replaces the metric of its name and filter where
// aggregate_metric_list names it twice (lm-eval's dict keeps the first
// place and the last value).
func (gr *GroupResult) setMetric(m Metric) {
	for i, old := range gr.Metrics {
		if old.Name == m.Name && old.Filter == m.Filter {
			gr.Metrics[i] = m
			return
		}
	}
	gr.Metrics = append(gr.Metrics, m)
}

// discoverFilters lists, sorted, the filters under which any leaf reports
// the metric (lm-eval's _discover_filters_for_metric).
func discoverFilters(metric string, leafNames []string, results map[string]*TaskResult) []string {
	seen := map[string]bool{}
	for _, n := range leafNames {
		if t, ok := results[n]; ok {
			for _, m := range t.Metrics {
				if m.Name == metric {
					seen[m.Filter] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
