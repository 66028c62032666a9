package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goeval/goeval"
)

// SummaryTable renders lm-eval's make_table, the markdown lm_eval prints
// after a run: one row per metric, tasks first, then a table of the
// aggregated groups.
func SummaryTable(res *goeval.Results) string {
	var b strings.Builder
	head := "|Tasks|Version|Filter|n-shot|Metric| |Value| |Stderr|\n|---|---|---|---:|---|---|---:|---|---:|\n"
	b.WriteString(head)
	for _, t := range res.Tasks {
		name := t.Alias
		for _, m := range t.Metrics {
			fmt.Fprintf(&b, "|%s|%v|%s|%d|%s|%s|%.4f|±|%s|\n", name, versionCell(t.Version), m.Filter, t.NumFewshot, m.Name, arrow(m), m.Value, stderrCell(m))
			name = ""
		}
	}
	var groups []*goeval.GroupResult
	for _, g := range res.Groups {
		if g.Aggregate && len(g.Metrics) > 0 {
			groups = append(groups, g)
		}
	}
	if len(groups) > 0 {
		b.WriteString("\n|Groups|Version|Filter|n-shot|Metric| |Value| |Stderr|\n|---|---|---|---:|---|---|---:|---|---:|\n")
		for _, g := range groups {
			name, shots := g.Alias, ""
			if g.NumFewshot != nil {
				shots = strconv.Itoa(*g.NumFewshot)
			}
			for _, m := range g.Metrics {
				fmt.Fprintf(&b, "|%s|%s|%s|%s|%s|%s|%.4f|±|%s|\n", name, g.Version, m.Filter, shots, m.Name, arrow(m), m.Value, stderrCell(m))
				name = ""
			}
		}
	}
	return b.String()
}

func versionCell(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func arrow(m goeval.Metric) string {
	if m.HigherIsBetter {
		return "↑"
	}
	return "↓"
}

func stderrCell(m goeval.Metric) string {
	if !m.StderrOK {
		return "N/A"
	}
	return fmt.Sprintf("%.4f", m.Stderr)
}
