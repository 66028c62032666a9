package report

import (
	"math"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// CompareOptions tunes Compare.
type CompareOptions struct {
	BootstrapIters int    // paired bootstrap resamples; 0 means 10000
	Seed           uint64 // bootstrap seed; results are reproducible for a seed
}

// Cell is one run's value of one metric.
type Cell struct {
	Value, Stderr float64
	OK, StderrOK  bool // value present and numeric; stderr numeric (not "N/A")
}

// Change is one run's change against the baseline (the first run).
type Change struct {
	Abs float64 // value - baseline
	Rel float64 // Abs / |baseline|; NaN when the baseline is 0
	// Test is "mcnemar" (exact, 0/1 per-doc metrics), "bootstrap" (paired,
	// other metrics), "z" (unpaired, from the stderrs, when either run has
	// no samples file) or "" (no test possible).
	Test        string
	P           float64 // two-sided p-value; 1 without a test
	N           int     // paired docs used by the test
	B, C        int     // McNemar discordant docs: right only in baseline, right only in this run
	Low, High   float64 // 95 % interval of Abs (bootstrap, McNemar's Wald or z)
	Significant bool    // P < metrics.Alpha
	Verdict     string  // "improved", "regressed" (significant only) or ""
	Note        string  // why no test, or docs that could not be paired
	// NonFinite: a value is NaN or ±Inf (a model whose numerics broke, or
	// an overflowing perplexity), so the runs are not comparable: no
	// change, no test.
	NonFinite bool
}

// Row is one (task, metric, filter) across runs.
type Row struct {
	Task, Metric, Filter string
	Key                  string // "acc,none"
	HigherIsBetter       bool
	Cells                []Cell   // per run
	Changes              []Change // per run; Changes[0] is the baseline's own (zero)
}

// Summary condenses one run's changes against the baseline.
type Summary struct {
	Run                        string
	Improved, Regressed, Same  int     // significant improvements/regressions, the rest
	MeanAbs                    float64 // average absolute change of the score metrics (Score - ScoreBase)
	MeanGain                   float64 // average relative change over all metrics, signed so that + is better
	ScoreBase, Score, ScoreRel float64 // mean of higher-is-better metrics in [0,1] ("average accuracy")
	NScore                     int
	PplBase, Ppl, PplRel       float64 // mean of perplexity metrics
	NPpl                       int
}

// Comparison is the result of Compare.
type Comparison struct {
	Runs      []string // labels, baseline first
	Paths     []string // results files
	Rows      []Row
	Summaries []Summary // one per non-baseline run
	// Groups maps each group the runs report to its subtasks
	// (group_subtasks), for charts that show a group as one row.
	Groups map[string][]string
}

// Compare lines up every metric of every task across runs (the first run
// is the baseline) and tests each change for significance on the paired
// samples. Tasks keep the baseline's order; tasks only in later runs follow.
func Compare(runs []*Run, o CompareOptions) (*Comparison, error) {
	if o.BootstrapIters == 0 {
		o.BootstrapIters = 10000
	}
	c := &Comparison{}
	for i, r := range runs {
		c.Runs = append(c.Runs, Label(runs, i))
		c.Paths = append(c.Paths, r.ResultsPath)
	}
	for _, task := range taskUnion(runs) {
		for _, key := range metricKeys(runs, task) {
			row, err := compareRow(runs, task, key, o)
			if err != nil {
				return nil, err
			}
			c.Rows = append(c.Rows, row)
		}
	}
	for j := 1; j < len(runs); j++ {
		c.Summaries = append(c.Summaries, summarize(c, j))
	}
	c.Groups = map[string][]string{}
	for _, r := range runs {
		for _, g := range r.Results.GroupSubtasks.Keys() {
			if _, ok := c.Groups[g]; !ok {
				c.Groups[g], _ = r.Results.GroupSubtasks.Get(g)
			}
		}
	}
	return c, nil
}

func taskUnion(runs []*Run) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, t := range r.Results.TaskNames() {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// metricKeys lists the "metric,filter" keys of a task (no stderrs), in
// file order, over all runs.
func metricKeys(runs []*Run, task string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		m, _ := r.Results.Results.Get(task)
		for _, k := range m.Keys() {
			if seen[k] || !strings.Contains(k, ",") || strings.Contains(k, "_stderr,") {
				continue
			}
			if _, ok := m.Float(k); !ok {
				continue
			}
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

func compareRow(runs []*Run, task, key string, o CompareOptions) (Row, error) {
	metric, filter, _ := strings.Cut(key, ",")
	row := Row{Task: task, Metric: metric, Filter: filter, Key: key,
		HigherIsBetter: higherIsBetter(runs[0].Results, task, metric)}
	stderrKey := metric + "_stderr," + filter
	for _, r := range runs {
		m, _ := r.Results.Results.Get(task)
		v, ok := m.Float(key)
		se, seOK := m.Float(stderrKey)
		row.Cells = append(row.Cells, Cell{Value: v, OK: ok, Stderr: se, StderrOK: seOK})
	}
	row.Changes = make([]Change, len(runs))
	row.Changes[0] = Change{P: 1, Rel: 0}
	for j := 1; j < len(runs); j++ {
		ch, err := compareCell(runs[0], runs[j], &row, j, o)
		if err != nil {
			return row, err
		}
		row.Changes[j] = ch
	}
	return row, nil
}

func compareCell(base, other *Run, row *Row, j int, o CompareOptions) (Change, error) {
	a, b := row.Cells[0], row.Cells[j]
	ch := Change{P: 1, Rel: math.NaN()}
	if !a.OK || !b.OK {
		ch.Note = "missing in one run"
		return ch, nil
	}
	if !finite(a.Value) || !finite(b.Value) {
		nan := math.NaN()
		ch.Abs, ch.Low, ch.High, ch.NonFinite = nan, nan, nan, true
		ch.Note = "not comparable: a value is NaN or ±Inf"
		return ch, nil
	}
	ch.Abs = b.Value - a.Value
	if a.Value != 0 {
		ch.Rel = ch.Abs / math.Abs(a.Value)
	}
	ch.Low, ch.High = ch.Abs, ch.Abs
	if err := pairedTest(base, other, row, &ch, o); err != nil {
		return ch, err
	}
	if ch.Test == "" && a.StderrOK && b.StderrOK {
		if p, low, high, ok := metrics.ZTest(ch.Abs, a.Stderr, b.Stderr); ok {
			ch.Test, ch.P, ch.Low, ch.High = metrics.TestZ, p, low, high
		}
	}
	ch.Significant = ch.Test != "" && ch.P < metrics.Alpha && ch.Abs != 0
	if ch.Significant {
		if (ch.Abs > 0) == row.HigherIsBetter {
			ch.Verdict = "improved"
		} else {
			ch.Verdict = "regressed"
		}
	}
	return ch, nil
}

// higherIsBetter reads "higher_is_better"; a missing entry means true,
// except for perplexity-type metrics and bits_per_byte.
func higherIsBetter(r *Results, task, metric string) bool {
	if v, ok := r.HigherIsBetter.Get(task); ok {
		if m, ok := v.(*py.Map[any]); ok {
			if b, ok := m.Get(metric); ok {
				if bb, ok := b.(bool); ok {
					return bb
				}
			}
		}
	}
	return !(strings.Contains(metric, "perplexity") || metric == "bits_per_byte")
}

func summarize(c *Comparison, j int) Summary {
	s := Summary{Run: c.Runs[j]}
	nRel := 0
	for _, row := range c.Rows {
		ch := row.Changes[j]
		a, b := row.Cells[0], row.Cells[j]
		if !a.OK || !b.OK || ch.NonFinite {
			continue
		}
		switch ch.Verdict {
		case "improved":
			s.Improved++
		case "regressed":
			s.Regressed++
		default:
			s.Same++
		}
		if !math.IsNaN(ch.Rel) {
			if row.HigherIsBetter {
				s.MeanGain += ch.Rel
			} else {
				s.MeanGain -= ch.Rel
			}
			nRel++
		}
		switch {
		case strings.Contains(row.Metric, "perplexity"):
			s.PplBase, s.Ppl, s.NPpl = s.PplBase+a.Value, s.Ppl+b.Value, s.NPpl+1
		case row.HigherIsBetter && a.Value >= 0 && a.Value <= 1 && b.Value >= 0 && b.Value <= 1:
			s.ScoreBase, s.Score, s.NScore = s.ScoreBase+a.Value, s.Score+b.Value, s.NScore+1
		}
	}
	s.MeanGain = safeDiv(s.MeanGain, float64(nRel))
	s.ScoreBase, s.Score = safeDiv(s.ScoreBase, float64(s.NScore)), safeDiv(s.Score, float64(s.NScore))
	s.PplBase, s.Ppl = safeDiv(s.PplBase, float64(s.NPpl)), safeDiv(s.Ppl, float64(s.NPpl))
	s.MeanAbs = s.Score - s.ScoreBase
	s.ScoreRel = safeDiv(s.Score-s.ScoreBase, s.ScoreBase)
	s.PplRel = safeDiv(s.Ppl-s.PplBase, s.PplBase)
	return s
}

// finite reports whether f is neither NaN nor ±Inf.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}
