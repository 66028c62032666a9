package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// SummaryTable is what lm_eval prints after a run: make_table of the
// results, then of the groups when the file has any, each followed by a
// blank line — lm-eval 0.4.13's rows (tasks under their groups, indented
// by depth, metrics sorted, stderrs, arrows) rendered as pytablewriter does
// (mdtable.go), byte for byte.
func SummaryTable(rep *Results) string {
	out := makeTable(rep, &rep.Results, "Tasks") + "\n"
	if rep.Groups.Len() > 0 {
		out += makeTable(rep, &rep.Groups, "Groups") + "\n"
	}
	return out
}

// RunLine is the line lm_eval prints above the tables: the model, its
// arguments, gen_kwargs, limit, num_fewshot (the command's: -1 for none
// given, None) and batch size, as the results file's config block holds
// them, in Python's spelling.
func RunLine(rep *Results, numFewshot int) string {
	get := func(k string) any { v, _ := rep.Config.Get(k); return v }
	repr := func(v any) string {
		if s, err := py.ReprValue(v); err == nil {
			return s
		}
		return py.Str(v)
	}
	shots := "None"
	if numFewshot >= 0 {
		shots = fmt.Sprint(numFewshot)
	}
	line := fmt.Sprintf("%s (%s), gen_kwargs: (%s), limit: %s, num_fewshot: %s, batch_size: %s",
		py.Str(get("model")), repr(get("model_args")), repr(get("gen_kwargs")), py.Str(get("limit")), shots, py.Str(get("batch_size")))
	if sizes, ok := get("batch_sizes").([]any); ok && len(sizes) > 0 {
		parts := make([]string, len(sizes))
		for i, x := range sizes {
			parts[i] = py.Str(x)
		}
		line += " (" + strings.Join(parts, ",") + ")"
	}
	return line + "\n"
}

// makeTable is lm-eval's make_table for one of "results" and "groups".
func makeTable(rep *Results, entries *py.Map[*py.Map[any]], title string) string {
	headers := []string{title, "Version", "Filter", "n-shot", "Metric", "", "Value", "", "Stderr"}
	depth, keys := hierarchy(&rep.GroupSubtasks, entries)
	var rows [][]any
	for _, k := range keys {
		entry, _ := entries.Get(k)
		version, ok := rep.Versions.Get(k)
		if !ok {
			version = "    N/A"
		}
		shots := " "
		if n, ok := rep.NShot.Get(k); ok {
			shots = py.Str(n)
		}
		name := k
		if a, ok := entry.Get("alias"); ok {
			name = py.Str(a)
		}
		if d := depth[k]; d > 0 {
			name = strings.Repeat(" ", d) + "- " + name
		}
		hib, _ := rep.HigherIsBetter.Get(k)
		for _, key := range tableMetricKeys(entry) {
			m, f, _ := strings.Cut(key, ",")
			if strings.HasSuffix(m, "_stderr") {
				continue
			}
			row := []any{name, version, f, shots, m, arrowOf(hib, m), tableValue(entry.Value(key)), "", ""}
			if se, ok := entry.Get(m + "_stderr," + f); ok {
				row[7], row[8] = "±", stderrText(se)
			}
			rows = append(rows, row)
			name, version = "", ""
		}
	}
	return markdownTable(headers, rows)
}

// tableMetricKeys are an entry's keys but alias, name, sample_len and
// sample_count, sorted.
func tableMetricKeys(entry *py.Map[any]) []string {
	var keys []string
	for _, k := range entry.Keys() {
		switch k {
		case "alias", "name", "sample_len", "sample_count":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// hierarchy is lm-eval's _build_hierarchy_info: each group's depth and the
// keys in display order — from every top-level group (sorted), itself then
// its subtasks (sorted, recursively); then the keys in no group, sorted. A
// task in two groups is listed under each, at the depth of the last visit.
func hierarchy(subtasks *py.Map[[]string], entries *py.Map[*py.Map[any]]) (map[string]int, []string) {
	depth := map[string]int{}
	var order []string
	var visit func(name string, d int)
	visit = func(name string, d int) {
		depth[name] = d
		if _, ok := entries.Get(name); ok {
			order = append(order, name)
		}
		children, _ := subtasks.Get(name)
		for _, c := range sortedCopy(children) {
			visit(c, d+1)
		}
	}
	child := map[string]bool{}
	for _, g := range subtasks.Keys() {
		cs, _ := subtasks.Get(g)
		for _, c := range cs {
			child[c] = true
		}
	}
	for _, g := range sortedCopy(subtasks.Keys()) {
		if !child[g] {
			visit(g, 0)
		}
	}
	for _, k := range sortedCopy(entries.Keys()) {
		if _, ok := depth[k]; !ok {
			order = append(order, k)
		}
	}
	return depth, order
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// arrowOf is HIGHER_IS_BETTER_SYMBOLS for the metric: ↑, ↓ or "".
func arrowOf(hib any, metric string) string {
	m, ok := hib.(*py.Map[any])
	if !ok {
		return ""
	}
	switch v, _ := m.Get(metric); v {
	case true:
		return "↑"
	case false:
		return "↓"
	}
	return ""
}

// tableValue is make_table's value cell: a float as "%.4f", anything
// else as it is (typed again by the table).
func tableValue(v any) any {
	if f, ok := pyFloat(v); ok {
		return pyFixed4(f)
	}
	return v
}

// stderrText is make_table's stderr cell: "   N/A" for lm-eval's "N/A",
// else "%.4f".
func stderrText(se any) string {
	if se == "N/A" {
		return "   N/A"
	}
	f, _ := py.ToFloat(se)
	return pyFixed4(f)
}

// pyFloat reports whether v is a Python float (float64, or a JSON number
// that is not an integer literal) and its value.
func pyFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		if py.IsIntLiteral(x) {
			return 0, false
		}
		return py.ToFloat(x)
	}
	return 0, false
}

// pyFixed4 is Python's "%.4f" % f: NaN and ±Inf print as nan, inf, -inf
// (a model whose numerics broke), where Go prints NaN and +Inf.
func pyFixed4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmtValue(f)
	}
	return fmt.Sprintf("%.4f", f)
}
