package charts

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/goeval/goeval/report"
	"gonum.org/v1/plot/vg"
)

// legendEntry is one coloured swatch and its text.
type legendEntry struct {
	Text   string
	Color  color.Color
	Hollow bool // a hollow dot instead of a square
	Dot    bool
}

// header lays out the title, the legend (wrapped over as many lines as it
// needs, above the data so it never covers it) and an optional note; it
// returns the y under them. Texts are placed top-down from c.H.
func (c *Chart) header(title string, legend []legendEntry, note string) vg.Length {
	y := c.H - pad - extents(titleSize).Ascent
	c.text(title, titleSize, pad, y, "title")
	y -= textHeight(titleSize)/2 + pad
	lineH := textHeight(textSize) + 3
	x := pad
	y -= extents(textSize).Ascent
	for _, e := range legend {
		w := 10 + textWidth(e.Text, textSize) + 12
		if x > pad && x+w > c.W-pad {
			x, y = pad, y-lineH
		}
		box := []vg.Point{{X: x, Y: y - 1}, {X: x + 7, Y: y + 6}}
		switch {
		case e.Dot:
			c.Marks = append(c.Marks, Mark{Kind: "dot", Pts: []vg.Point{{X: x + 3.5, Y: y + 2.5}}, Color: e.Color, Hollow: e.Hollow, Panel: -1})
		default:
			c.Marks = append(c.Marks, Mark{Kind: "bar", Pts: box, Color: e.Color, Panel: -1})
		}
		c.text(e.Text, textSize, x+10, y, "legend")
		x += w
	}
	if note != "" {
		y -= lineH
		c.text(note, textSize, pad, y, "legend")
	}
	return y - extents(textSize).Descent - pad
}

// runLegend is one square per run.
func runLegend(runs []string) []legendEntry {
	out := make([]legendEntry, len(runs))
	for j, r := range runs {
		out[j] = legendEntry{Text: r, Color: runColor(j)}
	}
	return out
}

// skippedNote names the tasks a chart leaves out.
func skippedNote(skipped []string) string {
	if len(skipped) == 0 {
		return ""
	}
	s := strings.Join(skipped, ", ")
	if len(skipped) > 4 {
		s = strings.Join(skipped[:4], ", ") + fmt.Sprintf(" and %d more", len(skipped)-4)
	}
	return "not shown (no score metric in [0,1]): " + s
}

// rowLayout sizes the label column and the rows of a horizontal chart.
type rowLayout struct {
	x0, x1 vg.Length // data area, left to right
	rowH   vg.Length
}

func newRowLayout(labels []string, perRow int, minData vg.Length) (rowLayout, vg.Length) {
	lw := vg.Length(0)
	for _, l := range labels {
		lw = max(lw, textWidth(l, textSize))
	}
	w := max(chartWidth, pad+lw+6+minData+pad+10)
	rowH := max(textHeight(textSize)*1.45, vg.Length(perRow)*6+4)
	return rowLayout{x0: pad + lw + 6, x1: w - pad - 10, rowH: rowH}, w
}

// ScoresChart draws one row per task (its primary metric, or
// o.Metric), one bar per run with its 95 % interval (±1.96 stderr) clipped
// to [0, 1], sorted as o.Sort says; the height grows with the rows.
func ScoresChart(c *report.Comparison, o Options) (*Chart, error) {
	rows, skipped, err := chartRows(c, o)
	if err != nil {
		return nil, fmt.Errorf("scores chart: %w", err)
	}
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = rowLabel(r)
	}
	lay, w := newRowLayout(labels, len(c.Runs), 240)
	ch := &Chart{W: w}
	legend := runLegend(c.Runs)
	headerH := headerHeight(ch.W, "Scores per task (95 % intervals)", legend, skippedNote(skipped))
	axisH := textHeight(textSize)*2 + 3*pad
	ch.H = headerH + vg.Length(len(rows))*lay.rowH + axisH
	top := ch.header("Scores per task (95 % intervals)", legend, skippedNote(skipped))
	bottom := top - vg.Length(len(rows))*lay.rowH
	ch.Panels = []vg.Rectangle{{Min: vg.Point{X: lay.x0, Y: bottom}, Max: vg.Point{X: lay.x1, Y: top}}}
	xOf := func(v float64) vg.Length { return lay.x0 + vg.Length(clip(v, 0, 1))*(lay.x1-lay.x0) }
	ch.xAxis(0, 1, lay.x0, lay.x1, bottom, top, niceTicks(0, 1, 5), func(v float64) string { return fmt.Sprintf("%.1f", v) })
	ch.textCenter("score", textSize, (lay.x0+lay.x1)/2, bottom-2*textHeight(textSize)-6, "label")
	n := len(c.Runs)
	barH := min(vg.Length(5), (lay.rowH-4)/vg.Length(n))
	for i, r := range rows {
		rowTop := top - vg.Length(i)*lay.rowH
		mid := rowTop - lay.rowH/2
		ch.textRight(labels[i], textSize, lay.x0-6, mid-extents(textSize).Ascent/2+1, "label")
		y0 := mid + barH*vg.Length(n)/2
		if nan := nanRuns(c.Runs, r.Row); nan != "" {
			ch.text(nan, textSize, lay.x0+3, mid-extents(textSize).Ascent/2+1, "label")
		}
		for j, cell := range r.Row.Cells {
			if !cell.OK || math.IsNaN(cell.Value) {
				continue
			}
			yb, yt := y0-vg.Length(j+1)*barH, y0-vg.Length(j)*barH
			ch.mark("bar", runColor(j), vg.Point{X: lay.x0, Y: yb + 0.5}, vg.Point{X: xOf(cell.Value), Y: yt - 0.5})
			if cell.StderrOK && !math.IsNaN(cell.Stderr) {
				ym := (yb + yt) / 2
				lo, hi := xOf(cell.Value-1.96*cell.Stderr), xOf(cell.Value+1.96*cell.Stderr)
				ch.mark("whisker", color.Black, vg.Point{X: lo, Y: ym}, vg.Point{X: hi, Y: ym})
			}
		}
	}
	return ch, nil
}

// rowLabel is a row's label, groups marked.
func rowLabel(r chartRow) string {
	if r.Group {
		return r.Label + " (group)"
	}
	return r.Label
}

// headerHeight measures header on a scratch chart of width w.
func headerHeight(w vg.Length, title string, legend []legendEntry, note string) vg.Length {
	scratch := &Chart{W: w, H: 1000}
	return 1000 - scratch.header(title, legend, note)
}

// nanRuns is the text drawn in a row for its NaN values ("nan", or "nan:
// run, run" when other runs have bars), "" when there are none.
func nanRuns(runs []string, r report.Row) string {
	var names []string
	for j, c := range r.Cells {
		if c.OK && math.IsNaN(c.Value) {
			names = append(names, runs[j])
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == len(r.Cells):
		return "nan"
	}
	return "nan: " + strings.Join(names, ", ")
}
