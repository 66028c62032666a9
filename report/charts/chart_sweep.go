package charts

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/goeval/goeval/report"
	"gonum.org/v1/plot/vg"
)

// maxLinesPerPanel is how many lines one panel of the sweep chart holds;
// more are drawn as small multiples, one panel per line.
const maxLinesPerPanel = 8

// stepRE finds the step in a checkpoint name: checkpoint-500, step_500,
// global_step500, ckpt500 (the last number of the name).
var stepRE = regexp.MustCompile(`(\d+)\D*$`)

// checkpointSteps returns the runs' steps when every label names one
// (distinct and increasing), else nil.
func checkpointSteps(runs []string) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		m := stepRE.FindStringSubmatch(r)
		if m == nil {
			return nil
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil || (i > 0 && v <= out[i-1]) {
			return nil
		}
		out[i] = v
	}
	return out
}

// sweepLines picks the lines a sweep chart draws: every group, then the
// o.TopK non-group tasks whose score changed most from the first to the
// last checkpoint (all with TopK < 0). By default the groups and tasks
// fill one panel (eight lines; at least three tasks).
func sweepLines(rows []chartRow, topK int) []chartRow {
	var groups, tasks []chartRow
	for _, r := range rows {
		if r.Group {
			groups = append(groups, r)
		} else {
			tasks = append(tasks, r)
		}
	}
	if topK == 0 {
		topK = max(maxLinesPerPanel-len(groups), 3)
	}
	change := func(r chartRow) float64 {
		c := r.Row.Cells
		d := math.Abs(c[len(c)-1].Value - c[0].Value)
		if math.IsNaN(d) {
			return -1
		}
		return d
	}
	slices.SortStableFunc(tasks, func(a, b chartRow) int {
		if ca, cb := change(a), change(b); ca != cb {
			if ca > cb {
				return -1
			}
			return 1
		}
		return 0
	})
	if topK > 0 && len(tasks) > topK {
		tasks = tasks[:topK]
	}
	return append(groups, tasks...)
}

// SweepChart draws score against checkpoint: the groups and the most
// changed tasks (o.TopK), labelled at their line ends; more than eight
// lines become small multiples. Checkpoints named by step (checkpoint-500)
// sit on a real step axis.
func SweepChart(c *report.Comparison, o Options) (*Chart, error) {
	if o.Sort == "" {
		o.Sort = "name"
	}
	rows, skipped, err := chartRows(c, o)
	if err != nil {
		return nil, fmt.Errorf("sweep chart: %w", err)
	}
	lines := sweepLines(rows, o.TopK)
	xs := checkpointSteps(c.Runs)
	xLabel := "checkpoint step"
	if xs == nil {
		xLabel = "checkpoint (run order)"
		xs = make([]float64, len(c.Runs))
		for i := range xs {
			xs[i] = float64(i)
		}
	}
	ylo, yhi := valueRange(lines)
	sw := sweep{c: c, xs: xs, ylo: ylo, yhi: yhi, xLabel: xLabel}
	title := fmt.Sprintf("Score vs checkpoint (%d of %d tasks: groups and the most changed)", len(lines), len(rows))
	if len(lines) == len(rows) {
		title = "Score vs checkpoint"
	}
	if len(lines) <= maxLinesPerPanel {
		return sw.single(title, lines, skipped), nil
	}
	return sw.multiples(title, lines, skipped), nil
}

// valueRange is a rounded range around every finite value, inside [0, 1].
func valueRange(lines []chartRow) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, c := range l.Row.Cells {
			if c.OK && !math.IsNaN(c.Value) {
				lo, hi = math.Min(lo, c.Value), math.Max(hi, c.Value)
			}
		}
	}
	if lo > hi {
		return 0, 1
	}
	span := math.Max(hi-lo, 0.05)
	lo, hi = math.Max(0, lo-0.1*span), math.Min(1, hi+0.1*span)
	t := niceTicks(lo, hi, 4)
	step := t[1] - t[0]
	return math.Max(0, math.Floor(lo/step)*step), math.Min(1, math.Ceil(hi/step)*step)
}

// sweep holds what both sweep layouts share.
type sweep struct {
	c        *report.Comparison
	xs       []float64
	ylo, yhi float64
	xLabel   string
}

// mapper maps data to a panel's rectangle.
func (s sweep) mapper(p vg.Rectangle) func(x, y float64) vg.Point {
	x0, x1 := s.xs[0], s.xs[len(s.xs)-1]
	if x1 == x0 {
		x1 = x0 + 1
	}
	return func(x, y float64) vg.Point {
		return vg.Point{
			X: p.Min.X + vg.Length((x-x0)/(x1-x0))*(p.Max.X-p.Min.X),
			Y: p.Min.Y + vg.Length((clip(y, s.ylo, s.yhi)-s.ylo)/(s.yhi-s.ylo))*(p.Max.Y-p.Min.Y),
		}
	}
}

// line draws one row's values as a polyline with dots; it returns the
// last finite point (ok false when none).
func (s sweep) line(ch *Chart, r chartRow, j int, at func(x, y float64) vg.Point) (vg.Point, bool) {
	var pts []vg.Point
	for i, cell := range r.Row.Cells {
		if cell.OK && !math.IsNaN(cell.Value) {
			pts = append(pts, at(s.xs[i], cell.Value))
		}
	}
	if len(pts) == 0 {
		return vg.Point{}, false
	}
	if len(pts) > 1 {
		ch.mark("line", runColor(j), pts...)
	}
	for _, p := range pts {
		ch.Marks = append(ch.Marks, Mark{Kind: "dot", Pts: []vg.Point{p}, Color: runColor(j), Panel: len(ch.Panels) - 1})
	}
	return pts[len(pts)-1], true
}
