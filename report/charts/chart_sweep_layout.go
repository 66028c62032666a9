package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
)

// formatStep prints a step or run index.
func formatStep(v float64) string { return fmt.Sprintf("%g", v) }

// xTicks labels the checkpoints under a panel, lower than the y labels'
// reach, skipping any label that would touch the previous one. Small
// multiples label only the first and last checkpoint, inside the panel's
// width.
func (s sweep) xTicks(ch *Chart, p vg.Rectangle, at func(x, y float64) vg.Point, size vg.Length) {
	lastRight := vg.Length(math.Inf(-1))
	y := xTickBaseline(p, size)
	multiples := size < textSize
	for i, x := range s.xs {
		first, last := i == 0, i == len(s.xs)-1
		if multiples && !first && !last {
			continue
		}
		label := formatStep(x)
		px := at(x, s.ylo).X
		w := textWidth(label, size)
		left := max(px-w/2, pad)
		if multiples && first {
			left = p.Min.X
		} else if multiples && last {
			left = p.Max.X - w
		}
		if left < lastRight+4 || left+w > ch.W-pad {
			continue
		}
		ch.mark("grid", gray, vg.Point{X: px, Y: p.Min.Y}, vg.Point{X: px, Y: p.Max.Y})
		ch.text(label, size, left, y, "tick")
		lastRight = left + w
	}
}

// xTickBaseline is where x tick labels sit: below the panel and below the
// lowest y tick label, which is centred on the panel's bottom edge.
func xTickBaseline(p vg.Rectangle, size vg.Length) vg.Length {
	return p.Min.Y - textHeight(size) - 4 - extents(textSize).Ascent/2
}

// xAxisLabelBaseline is where the x axis title sits, under the tick labels.
func xAxisLabelBaseline(p vg.Rectangle) vg.Length {
	return xTickBaseline(p, textSize) - extents(textSize).Descent - 4 - extents(textSize).Ascent
}

// yTicks draws horizontal grid lines and, when labelled, their values left
// of the panel.
func (s sweep) yTicks(ch *Chart, p vg.Rectangle, at func(x, y float64) vg.Point, labelled bool, n int) {
	for _, v := range niceTicks(s.ylo, s.yhi, n) {
		if v < s.ylo-1e-9 || v > s.yhi+1e-9 {
			continue
		}
		y := at(s.xs[0], v).Y
		ch.mark("grid", gray, vg.Point{X: p.Min.X, Y: y}, vg.Point{X: p.Max.X, Y: y})
		if labelled {
			ch.textRight(fmt.Sprintf("%.2f", v+0), textSize, p.Min.X-4, y-extents(textSize).Ascent/2, "tick")
		}
	}
}

// single draws every line in one panel, each labelled at its end.
func (s sweep) single(title string, lines []chartRow, skipped []string) *Chart {
	lw := vg.Length(0)
	for _, l := range lines {
		lw = max(lw, textWidth(rowLabel(l), textSize))
	}
	yw := textWidth("0.00", textSize) + 8
	w := max(chartWidth, pad+yw+300+14+lw+pad)
	ch := &Chart{W: w}
	note := skippedNote(skipped)
	panelH := max(vg.Length(220), vg.Length(len(lines))*(textHeight(textSize)+2)+10)
	ch.H = headerHeight(w, title, nil, note) + panelH + 3*textHeight(textSize) + 3*pad + 8
	top := ch.header(title, nil, note)
	p := vg.Rectangle{Min: vg.Point{X: pad + yw, Y: top - panelH}, Max: vg.Point{X: w - pad - lw - 14, Y: top}}
	ch.Panels = []vg.Rectangle{p}
	at := s.mapper(p)
	s.yTicks(ch, p, at, true, 5)
	s.xTicks(ch, p, at, textSize)
	ch.textCenter(s.xLabel, textSize, (p.Min.X+p.Max.X)/2, xAxisLabelBaseline(p), "label")
	type end struct {
		label string
		pt    vg.Point
		y     vg.Length
		j     int
	}
	var ends []end
	for j, l := range lines {
		if pt, ok := s.line(ch, l, j, at); ok {
			ends = append(ends, end{rowLabel(l), pt, pt.Y - extents(textSize).Ascent/2, j})
		}
	}
	slices.SortStableFunc(ends, func(a, b end) int { return int(math.Copysign(1, float64(a.y-b.y))) })
	ys := make([]vg.Length, len(ends))
	for i := range ends {
		ys[i] = ends[i].y
	}
	spreadLabels(ys, textHeight(textSize)+1, p.Min.Y+extents(textSize).Descent, p.Max.Y-extents(textSize).Ascent)
	for i, e := range ends {
		x := p.Max.X + 12
		ch.mark("line", runColor(e.j), e.pt, vg.Point{X: x - 2, Y: ys[i] + extents(textSize).Ascent/2})
		ch.text(e.label, textSize, x, ys[i], "direct")
	}
	return ch
}

// spreadLabels moves sorted baselines apart by at least gap, keeping them
// within [lo, hi] where the room allows.
func spreadLabels(ys []vg.Length, gap, lo, hi vg.Length) {
	for i := range ys {
		ys[i] = max(ys[i], lo)
		if i > 0 {
			ys[i] = max(ys[i], ys[i-1]+gap)
		}
	}
	for i := len(ys) - 1; i >= 0; i-- {
		limit := hi
		if i < len(ys)-1 {
			limit = ys[i+1] - gap
		}
		ys[i] = min(ys[i], limit)
	}
}

// multiples draws one small panel per line, four to a row, sharing the y
// range (labelled on the left column).
func (s sweep) multiples(title string, lines []chartRow, skipped []string) *Chart {
	const cols = 4
	w := chartWidth
	yw := textWidth("0.00", textSize) + 8
	gap := vg.Length(10)
	panelW := (w - 2*pad - yw - (cols-1)*gap) / cols
	panelH := vg.Length(70)
	small := vg.Length(7)
	cellH := textHeight(small) + 4 + panelH + textHeight(small) + extents(textSize).Ascent/2 + 12
	nRows := (len(lines) + cols - 1) / cols
	ch := &Chart{W: w}
	note := skippedNote(skipped)
	ch.H = headerHeight(w, title, nil, note) + vg.Length(nRows)*cellH + textHeight(textSize) + 2*pad
	top := ch.header(title, nil, note)
	for i, l := range lines {
		r, c := i/cols, i%cols
		x0 := pad + yw + vg.Length(c)*(panelW+gap)
		ptop := top - vg.Length(r)*cellH - textHeight(small) - 4
		p := vg.Rectangle{Min: vg.Point{X: x0, Y: ptop - panelH}, Max: vg.Point{X: x0 + panelW, Y: ptop}}
		ch.Panels = append(ch.Panels, p)
		label, size := fitLabel(rowLabel(l), panelW, small)
		ch.text(label, size, x0, ptop+extents(size).Descent+2, "panel")
		at := s.mapper(p)
		s.yTicks(ch, p, at, c == 0, 2)
		s.xTicks(ch, p, at, small)
		ch.mark("line", color.Black, p.Min, vg.Point{X: p.Max.X, Y: p.Min.Y})
		s.line(ch, l, i%8, at)
	}
	ch.textCenter(s.xLabel, textSize, w/2, pad, "label")
	return ch
}

// fitLabel shrinks a label to fit width (down to 5 pt), then shortens it
// with an ellipsis.
func fitLabel(s string, width, size vg.Length) (string, vg.Length) {
	for ; size > 5 && textWidth(s, size) > width; size -= 0.5 {
	}
	for textWidth(s, size) > width && len(s) > 4 {
		r := []rune(strings.TrimSuffix(s, "…"))
		s = string(r[:len(r)-1]) + "…"
	}
	return s, size
}
