package report

import (
	"fmt"
	"math"
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
			fmt.Fprintf(&b, "|%s|%v|%s|%d|%s|%s|%s|±|%s|\n", name, versionCell(t.Version), m.Filter, t.NumFewshot, m.Name, arrow(m), pyFixed4(m.Value), stderrCell(m))
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
				fmt.Fprintf(&b, "|%s|%s|%s|%s|%s|%s|%s|±|%s|\n", name, g.Version, m.Filter, shots, m.Name, arrow(m), pyFixed4(m.Value), stderrCell(m))
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
	return pyFixed4(m.Stderr)
}

// pyFixed4 is Python's "%.4f" % f: NaN and ±Inf print as nan, inf, -inf
// (a model whose numerics broke), where Go prints NaN and +Inf.
func pyFixed4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmtValue(f)
	}
	return fmt.Sprintf("%.4f", f)
}
