package charts

import (
	"fmt"
	"image/color"
	"math"

	"github.com/goeval/goeval/report"
	"gonum.org/v1/plot/vg"
)

// forestRow is one row of the compare chart: per fine-tune, the change and
// its 95 % interval.
type forestRow struct {
	label         string
	abs, lo, hi   []float64 // per non-baseline run
	significant   []bool
	separatorOver bool
}

// CompareChart is the forest plot of a base-vs-fine-tunes comparison: per
// task, each fine-tune's change against the first run with the 95 %
// interval of the paired test compare computes (McNemar, paired bootstrap
// or z), significant changes filled, rows sorted by change, and on top the
// mean change over the tasks drawn.
func CompareChart(c *report.Comparison, o Options) (*Chart, error) {
	if len(c.Runs) < 2 {
		return nil, fmt.Errorf("compare chart: needs a baseline and at least one other run")
	}
	if o.Sort == "" {
		o.Sort = "change"
	}
	rows, skipped, err := chartRows(c, o)
	if err != nil {
		return nil, fmt.Errorf("compare chart: %w", err)
	}
	fr := append([]forestRow{meanRow(rows, len(c.Runs)-1)}, forestRows(rows)...)
	if len(fr) > 1 {
		fr[1].separatorOver = true
	}
	m := 0.0
	for _, r := range fr {
		for k := range r.abs {
			for _, v := range []float64{r.lo[k], r.hi[k]} {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					m = math.Max(m, math.Abs(v))
				}
			}
		}
	}
	m = math.Max(m, 0.02)
	ticks := niceTicks(-m, m, 6)
	step := ticks[1] - ticks[0]
	hi := math.Min(math.Ceil(m/step-1e-9)*step, 1) // every interval fits, within [-1, 1]
	lo := -hi
	return drawForest(c, fr, lo, hi, skipped), nil
}

func forestRows(rows []chartRow) []forestRow {
	out := make([]forestRow, len(rows))
	for i, r := range rows {
		f := forestRow{label: rowLabel(r)}
		for _, ch := range r.Row.Changes[1:] {
			f.abs = append(f.abs, ch.Abs)
			f.lo = append(f.lo, ch.Low)
			f.hi = append(f.hi, ch.High)
			f.significant = append(f.significant, ch.Significant)
		}
		out[i] = f
	}
	return out
}

// meanRow is the mean change over the rows, with an interval from the
// rows' interval half-widths as independent normal errors:
// ±1.96·√(Σ seᵢ²)/n, seᵢ = (highᵢ − lowᵢ)/(2·1.96).
func meanRow(rows []chartRow, k int) forestRow {
	f := forestRow{label: fmt.Sprintf("mean of %d tasks", len(rows))}
	for j := 1; j <= k; j++ {
		var sum, v float64
		n := 0
		for _, r := range rows {
			ch := r.Row.Changes[j]
			if math.IsNaN(ch.Abs) || !r.Row.Cells[0].OK || !r.Row.Cells[j].OK {
				continue
			}
			se := (ch.High - ch.Low) / (2 * 1.96)
			sum, v, n = sum+ch.Abs, v+se*se, n+1
		}
		mean, half := math.NaN(), 0.0
		if n > 0 {
			mean, half = sum/float64(n), 1.96*math.Sqrt(v)/float64(n)
		}
		f.abs, f.lo, f.hi = append(f.abs, mean), append(f.lo, mean-half), append(f.hi, mean+half)
		f.significant = append(f.significant, n > 0 && (mean-half > 0 || mean+half < 0))
	}
	return f
}

func drawForest(c *report.Comparison, fr []forestRow, lo, hi float64, skipped []string) *Chart {
	labels := make([]string, len(fr))
	for i, r := range fr {
		labels[i] = r.label
	}
	k := len(c.Runs) - 1
	lay, w := newRowLayout(labels, k+1, 260)
	lay.rowH = max(textHeight(textSize)*1.45, vg.Length(k)*8+4)
	ch := &Chart{W: w}
	title := "Change against " + c.Runs[0] + " (95 % intervals)"
	legend := runLegend(c.Runs)[1:]
	legend = append(legend, legendEntry{Text: "significant (p < 0.05)", Color: color.Black, Dot: true},
		legendEntry{Text: "not significant", Color: color.Black, Dot: true, Hollow: true})
	note := skippedNote(skipped)
	ch.H = headerHeight(w, title, legend, note) + vg.Length(len(fr))*lay.rowH + textHeight(textSize)*2 + 3*pad
	top := ch.header(title, legend, note)
	bottom := top - vg.Length(len(fr))*lay.rowH
	ch.Panels = []vg.Rectangle{{Min: vg.Point{X: lay.x0, Y: bottom}, Max: vg.Point{X: lay.x1, Y: top}}}
	xOf := func(v float64) vg.Length {
		return lay.x0 + vg.Length((clip(v, lo, hi)-lo)/(hi-lo))*(lay.x1-lay.x0)
	}
	ch.xAxis(lo, hi, lay.x0, lay.x1, bottom, top, niceTicks(lo, hi, 6), signed)
	ch.mark("line", color.Black, vg.Point{X: xOf(0), Y: bottom}, vg.Point{X: xOf(0), Y: top})
	ch.textCenter("change in score (fine-tune − baseline)", textSize, (lay.x0+lay.x1)/2, bottom-2*textHeight(textSize)-6, "label")
	for i, r := range fr {
		rowTop := top - vg.Length(i)*lay.rowH
		mid := rowTop - lay.rowH/2
		if r.separatorOver {
			ch.mark("line", gray, vg.Point{X: pad, Y: rowTop}, vg.Point{X: lay.x1, Y: rowTop})
		}
		ch.textRight(r.label, textSize, lay.x0-6, mid-extents(textSize).Ascent/2+1, "label")
		y0 := mid + vg.Length(k-1)*4
		for j := range r.abs {
			if math.IsNaN(r.abs[j]) || math.IsNaN(r.lo[j]) || math.IsNaN(r.hi[j]) {
				continue
			}
			y := y0 - vg.Length(j)*8
			ch.mark("whisker", runColor(j+1), vg.Point{X: xOf(r.lo[j]), Y: y}, vg.Point{X: xOf(r.hi[j]), Y: y})
			ch.Marks = append(ch.Marks, Mark{Kind: "dot", Pts: []vg.Point{{X: xOf(r.abs[j]), Y: y}},
				Color: runColor(j + 1), Hollow: !r.significant[j], Panel: 0})
		}
	}
	return ch
}

// signed prints a change: +0.05, -0.10, 0.
func signed(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.2f", v)
}
