package charts

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goeval/goeval/report"
)

// Options choose what the charts show.
type Options struct {
	// Metric, when set, is drawn for every task that has it (e.g. "acc");
	// else each task's primary metric (see primaryRow).
	Metric string
	// ExpandGroups draws a group's subtasks as rows; by default a group
	// (mmlu, mmlu_stem, …) is one row and its subtasks are left out.
	ExpandGroups bool
	// Sort orders the rows: "score" (the baseline's, best first),
	// "change" (the last run's change against the baseline, largest
	// first) or "name"; "" means change with two runs or more, else score.
	Sort string
	// TopK is how many most-changed tasks a sweep chart draws besides the
	// groups; 0 means as many as fit one panel with the groups (eight
	// lines, at least three tasks), a negative value every task.
	TopK int
}

// chartRow is one task's chosen metric across the runs.
type chartRow struct {
	Label string
	Row   report.Row
	Group bool
}

// isScore reports whether r is a score metric: higher is better and every
// finite value lies in [0, 1] (accuracy, exact match, F1, …). NaN values (a
// model whose numerics broke) are drawn as "nan" and do not disqualify a
// row; a row needs one value present.
func isScore(r report.Row) bool {
	if !r.HigherIsBetter {
		return false
	}
	present := false
	for _, c := range r.Cells {
		if c.OK && !math.IsNaN(c.Value) && (c.Value < 0 || c.Value > 1) {
			return false
		}
		present = present || c.OK
	}
	return present
}

// primaryRow picks the row drawn for a task among its score rows (file
// order): the metric asked for; else acc_norm when the task reports it (the
// Open LLM Leaderboard's choice for arc, hellaswag and the like); else the
// first score metric of the task's results entry, which is the first of
// lm-eval's metric list under its first filter.
func primaryRow(rows []report.Row, metric string) (report.Row, bool) {
	var scores []report.Row
	for _, r := range rows {
		if isScore(r) {
			scores = append(scores, r)
		}
	}
	if len(scores) == 0 {
		return report.Row{}, false
	}
	want := metric
	if want == "" {
		want = "acc_norm"
	}
	for _, r := range scores {
		if r.Metric == want {
			return r, true
		}
	}
	if metric != "" {
		return report.Row{}, false
	}
	return scores[0], true
}

// chartRows selects one row per task (groups collapsed unless expanded),
// sorted as o.Sort says; skipped names tasks without a score metric.
func chartRows(c *report.Comparison, o Options) (rows []chartRow, skipped []string, err error) {
	byTask := map[string][]report.Row{}
	var order []string
	for _, r := range c.Rows {
		if _, ok := byTask[r.Task]; !ok {
			order = append(order, r.Task)
		}
		byTask[r.Task] = append(byTask[r.Task], r)
	}
	inGroup := map[string]bool{}
	for _, subs := range c.Groups {
		for _, s := range subs {
			inGroup[s] = true
		}
	}
	for _, task := range order {
		_, isGroup := c.Groups[task]
		if !o.ExpandGroups && inGroup[task] && !isGroup {
			continue
		}
		if o.ExpandGroups && isGroup {
			continue
		}
		r, ok := primaryRow(byTask[task], o.Metric)
		if !ok {
			skipped = append(skipped, task)
			continue
		}
		label := task + " · " + strings.TrimSuffix(r.Key, ",none")
		rows = append(rows, chartRow{Label: label, Row: r, Group: isGroup})
	}
	if len(rows) == 0 {
		if o.Metric != "" {
			return nil, nil, fmt.Errorf("no task reports the score metric %q", o.Metric)
		}
		return nil, nil, fmt.Errorf("no score metrics (higher is better, values in [0,1]) to draw")
	}
	sortRows(rows, o.Sort, len(c.Runs))
	return rows, skipped, nil
}

// sortRows orders rows best/most-improved first; NaN values go last.
func sortRows(rows []chartRow, by string, nRuns int) {
	if by == "" {
		by = "score"
		if nRuns > 1 {
			by = "change"
		}
	}
	key := func(r chartRow) float64 {
		if by == "change" {
			return r.Row.Changes[len(r.Row.Changes)-1].Abs
		}
		return r.Row.Cells[0].Value
	}
	slices.SortStableFunc(rows, func(a, b chartRow) int {
		if by == "name" {
			return strings.Compare(a.Label, b.Label)
		}
		ka, kb := key(a), key(b)
		switch {
		case math.IsNaN(ka) && math.IsNaN(kb):
			return 0
		case math.IsNaN(ka):
			return 1
		case math.IsNaN(kb):
			return -1
		case ka > kb:
			return -1
		case ka < kb:
			return 1
		}
		return 0
	})
}

// ValidSort reports whether s is an Options.Sort value.
func ValidSort(s string) bool { return s == "" || s == "score" || s == "change" || s == "name" }
