package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot sizes.
const (
	plotWidth  = 18 * vg.Centimeter
	plotHeight = 10 * vg.Centimeter
)

// scoreRows are the rows plotted as scores: metrics where higher is better
// and every value lies in [0,1] (accuracy, exact match, …). NaN values (a
// model whose numerics broke) are not drawn (see plotted) and do not
// disqualify a row.
func scoreRows(c *Comparison) []Row {
	var out []Row
	for _, r := range c.Rows {
		if !r.HigherIsBetter {
			continue
		}
		ok, some := true, false
		for _, cell := range r.Cells {
			ok = ok && (!plotted(cell) || (cell.Value >= 0 && cell.Value <= 1))
			some = some || cell.OK
		}
		if ok && some {
			out = append(out, r)
		}
	}
	return out
}

// plotted reports whether a cell has a value to draw: present and finite.
func plotted(c Cell) bool { return c.OK && finite(c.Value) }

// ScoresPlot draws, per task and metric, one bar per run with a 95 %
// error bar (±1.96 stderr, when the stderr is known). A NaN value gets no
// bar, and "nan" is written where the bar would stand.
func ScoresPlot(c *Comparison) (*plot.Plot, error) {
	rows := scoreRows(c)
	if len(rows) == 0 {
		return nil, fmt.Errorf("scores plot: no score metrics (higher is better, in [0,1]) to draw")
	}
	p := plot.New()
	p.Title.Text = "Scores per task (95 % error bars)"
	p.Y.Label.Text = "score"
	p.Y.Min, p.Y.Max = 0, 1.3 // headroom for error bars and the legend
	nRuns := len(c.Runs)
	slot := 0.8 / float64(nRuns) // data units per bar
	width := vg.Length(float64(plotWidth) * 0.75 * slot / float64(len(rows)+1))
	for j := range c.Runs {
		vals := make(plotter.Values, len(rows))
		errs := make(plotter.XYs, len(rows))
		yerr := make(plotter.YErrors, len(rows))
		x0 := (float64(j) - float64(nRuns-1)/2) * slot
		var nan plotter.XYLabels
		for i, r := range rows {
			cell := r.Cells[j]
			errs[i] = plotter.XY{X: float64(i) + x0}
			if !plotted(cell) {
				if cell.OK {
					nan.XYs = append(nan.XYs, plotter.XY{X: float64(i) + x0, Y: 0.02})
					nan.Labels = append(nan.Labels, "nan")
				}
				continue
			}
			vals[i], errs[i].Y = cell.Value, cell.Value
			if cell.StderrOK && finite(cell.Stderr) {
				yerr[i] = struct{ Low, High float64 }{1.96 * cell.Stderr, 1.96 * cell.Stderr}
			}
		}
		if len(nan.XYs) > 0 {
			labels, err := plotter.NewLabels(nan)
			if err != nil {
				return nil, fmt.Errorf("scores plot: %w", err)
			}
			p.Add(labels)
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("scores plot: %w", err)
		}
		bars.XMin = x0
		bars.Color = plotutil.Color(j)
		bars.LineStyle.Width = 0
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{errs, yerr})
		if err != nil {
			return nil, fmt.Errorf("scores plot: %w", err)
		}
		p.Add(bars, eb)
		p.Legend.Add(c.Runs[j], bars)
	}
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = r.Task + "\n" + strings.TrimSuffix(r.Key, ",none")
	}
	p.NominalX(labels...)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// SweepPlot draws score against checkpoint (the runs in order), one line
// per task and metric: the view for a checkpoint sweep.
func SweepPlot(c *Comparison) (*plot.Plot, error) {
	rows := scoreRows(c)
	if len(rows) == 0 {
		return nil, fmt.Errorf("sweep plot: no score metrics to draw")
	}
	p := plot.New()
	p.Title.Text = "Score vs checkpoint"
	p.Y.Label.Text = "score"
	p.X.Label.Text = "checkpoint"
	for i, r := range rows {
		var pts plotter.XYs
		for j, cell := range r.Cells {
			if plotted(cell) { // NaN values (broken numerics) are skipped
				pts = append(pts, plotter.XY{X: float64(j), Y: cell.Value})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("sweep plot: %w", err)
		}
		line.Color = plotutil.Color(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(r.Task+" "+strings.TrimSuffix(r.Key, ",none"), line, points)
	}
	p.NominalX(c.Runs...)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// RenderPlot encodes p as "png" or "svg".
func RenderPlot(p *plot.Plot, format string) ([]byte, error) {
	wt, err := p.WriterTo(plotWidth, plotHeight, format)
	if err != nil {
		return nil, fmt.Errorf("render plot as %s: %w", format, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render plot as %s: %w", format, err)
	}
	return b.Bytes(), nil
}

// SavePlot writes p to path; the extension (.png or .svg) picks the format.
func SavePlot(p *plot.Plot, path string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("plot file %s: use a .png or .svg name", path)
	}
	b, err := RenderPlot(p, format)
	if err != nil {
		return err
	}
	return writeAtomic(path, b)
}
