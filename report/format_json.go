package report

import (
	"math"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// num makes a float JSON-safe: NaN and ±Inf become null.
func num(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// jsonObject is the "json" format: runs, rows with per-run values and
// changes, and summaries. Field names are stable for scripts.
func (c *Comparison) jsonObject() *py.Map[any] {
	out := py.NewMap[any]()
	out.Set("runs", c.Runs)
	out.Set("results_files", c.Paths)
	out.Set("alpha", metrics.Alpha)
	rows := []any{}
	for _, row := range c.Rows {
		o := py.NewMap[any]()
		o.Set("task", row.Task)
		o.Set("metric", row.Metric)
		o.Set("filter", row.Filter)
		o.Set("higher_is_better", row.HigherIsBetter)
		vals, ses, changes := []any{}, []any{}, []any{}
		for j, cell := range row.Cells {
			vals = append(vals, okNum(cell.Value, cell.OK))
			ses = append(ses, okNum(cell.Stderr, cell.StderrOK))
			if j > 0 {
				changes = append(changes, changeObject(c.Runs[j], row.Changes[j]))
			}
		}
		o.Set("values", vals)
		o.Set("stderrs", ses)
		o.Set("changes", changes)
		rows = append(rows, o)
	}
	out.Set("rows", rows)
	sums := []any{}
	for _, s := range c.Summaries {
		o := py.NewMap[any]()
		o.Set("run", s.Run)
		o.Set("improved", s.Improved)
		o.Set("regressed", s.Regressed)
		o.Set("unchanged", s.Same)
		o.Set("mean_score_change", num(s.MeanAbs))
		o.Set("mean_relative_gain", num(s.MeanGain))
		o.Set("avg_score_baseline", num(s.ScoreBase))
		o.Set("avg_score", num(s.Score))
		o.Set("avg_score_rel_change", num(s.ScoreRel))
		o.Set("perplexity_baseline", num(s.PplBase))
		o.Set("perplexity", num(s.Ppl))
		o.Set("perplexity_rel_change", num(s.PplRel))
		sums = append(sums, o)
	}
	out.Set("summaries", sums)
	return out
}

func okNum(f float64, ok bool) any {
	if !ok {
		return nil
	}
	return num(f)
}

func changeObject(run string, ch Change) *py.Map[any] {
	o := py.NewMap[any]()
	o.Set("run", run)
	o.Set("abs", num(ch.Abs))
	o.Set("rel", num(ch.Rel))
	o.Set("test", ch.Test)
	o.Set("p", num(ch.P))
	o.Set("n", ch.N)
	if ch.Test == "mcnemar" {
		o.Set("b", ch.B)
		o.Set("c", ch.C)
	}
	o.Set("ci_low", num(ch.Low))
	o.Set("ci_high", num(ch.High))
	o.Set("significant", ch.Significant)
	o.Set("verdict", ch.Verdict)
	o.Set("note", ch.Note)
	return o
}
