package charts

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"github.com/goeval/goeval/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A Chart is a drawing laid out before it is drawn: every text has its box
// (from the font metrics gonum/plot draws with) and every mark its points,
// so tests can check that labels never overlap or leave the image and that
// whiskers stay inside their panel. Coordinates are points from the
// bottom-left corner, as vg draws.
type Chart struct {
	W, H   vg.Length
	Texts  []Text
	Marks  []Mark
	Panels []vg.Rectangle // data areas; every whisker lies in one
}

// Text is one string drawn with its baseline-left at At.
type Text struct {
	Str  string
	Size vg.Length
	At   vg.Point
	Role string // "title", "label", "tick", "legend", "panel", "direct"
}

// Mark is a line (Kind "line", "whisker", "grid"), a filled box
// ("bar"), a dot ("dot", hollow when Hollow) at Pts.
type Mark struct {
	Kind   string
	Pts    []vg.Point
	Color  color.Color
	Hollow bool
	Panel  int // index into Panels (whiskers)
}

// Chart fonts and sizes.
var (
	chartFont = plot.DefaultFont
	gray      = color.Gray{Y: 200}
)

const (
	chartWidth = 18 * vg.Centimeter
	titleSize  = vg.Length(11)
	textSize   = vg.Length(8)
	pad        = vg.Length(6)
)

func face(size vg.Length) font.Face { return font.DefaultCache.Lookup(chartFont, size) }

func width(s string, size vg.Length) vg.Length {
	f := face(size)
	return f.Width(s)
}

func extents(size vg.Length) font.Extents {
	f := face(size)
	return f.Extents()
}

// textWidth and textHeight are the extents vg draws a string with.
func textWidth(s string, size vg.Length) vg.Length { return width(s, size) }

func textHeight(size vg.Length) vg.Length {
	e := extents(size)
	return e.Ascent + e.Descent
}

// Box is the rectangle a text covers (descenders included).
func (t Text) Box() vg.Rectangle {
	e := extents(t.Size)
	return vg.Rectangle{
		Min: vg.Point{X: t.At.X, Y: t.At.Y - e.Descent},
		Max: vg.Point{X: t.At.X + textWidth(t.Str, t.Size), Y: t.At.Y + e.Ascent},
	}
}

func (c *Chart) text(s string, size vg.Length, x, y vg.Length, role string) {
	c.Texts = append(c.Texts, Text{Str: s, Size: size, At: vg.Point{X: x, Y: y}, Role: role})
}

// textRight draws s ending at x.
func (c *Chart) textRight(s string, size vg.Length, x, y vg.Length, role string) {
	c.text(s, size, x-textWidth(s, size), y, role)
}

// textCenter draws s centred on x.
func (c *Chart) textCenter(s string, size vg.Length, x, y vg.Length, role string) {
	c.text(s, size, x-textWidth(s, size)/2, y, role)
}

func (c *Chart) mark(kind string, col color.Color, pts ...vg.Point) {
	c.Marks = append(c.Marks, Mark{Kind: kind, Pts: pts, Color: col, Panel: len(c.Panels) - 1})
}

// runColor is run j's colour (the baseline first).
func runColor(j int) color.Color { return plotutil.Color(j) }

// Render draws the chart as "png" or "svg".
func (c *Chart) Render(format string) ([]byte, error) {
	var cv vg.CanvasWriterTo
	switch format {
	case "png":
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(c.W, c.H), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		cv = vgsvg.New(c.W, c.H)
	default:
		return nil, fmt.Errorf("chart format %q: use png or svg", format)
	}
	c.draw(cv)
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render chart as %s: %w", format, err)
	}
	return b.Bytes(), nil
}

// Save writes the chart to path; the extension (.png or .svg) picks the format.
func (c *Chart) Save(path string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("plot file %s: use a .png or .svg name", path)
	}
	b, err := c.Render(format)
	if err != nil {
		return err
	}
	return report.WriteAtomic(path, b)
}

func (c *Chart) draw(cv vg.Canvas) {
	for _, m := range c.Marks {
		cv.SetColor(m.Color)
		cv.SetLineWidth(0.8)
		var p vg.Path
		switch m.Kind {
		case "bar":
			p.Move(m.Pts[0])
			p.Line(vg.Point{X: m.Pts[1].X, Y: m.Pts[0].Y})
			p.Line(m.Pts[1])
			p.Line(vg.Point{X: m.Pts[0].X, Y: m.Pts[1].Y})
			p.Close()
			cv.Fill(p)
		case "dot":
			p.Move(vg.Point{X: m.Pts[0].X + 2.5, Y: m.Pts[0].Y})
			p.Arc(m.Pts[0], 2.5, 0, 2*math.Pi)
			p.Close()
			if m.Hollow {
				cv.SetColor(color.White)
				cv.Fill(p)
				cv.SetColor(m.Color)
				cv.Stroke(p)
			} else {
				cv.Fill(p)
			}
		default:
			if m.Kind == "grid" {
				cv.SetLineWidth(0.4)
			}
			p.Move(m.Pts[0])
			for _, pt := range m.Pts[1:] {
				p.Line(pt)
			}
			cv.Stroke(p)
		}
	}
	cv.SetColor(color.Black)
	for _, t := range c.Texts {
		cv.FillString(face(t.Size), t.At, t.Str)
	}
}

// xAxis draws ticks and grid lines for [lo, hi] mapped to [x0, x1] under
// the panel from y0 to y1, with tick labels below y0.
func (c *Chart) xAxis(lo, hi float64, x0, x1, y0, y1 vg.Length, ticks []float64, format func(float64) string) {
	for _, v := range ticks {
		x := x0 + vg.Length((v-lo)/(hi-lo))*(x1-x0)
		c.mark("grid", gray, vg.Point{X: x, Y: y0}, vg.Point{X: x, Y: y1})
		c.textCenter(format(v), textSize, x, y0-textHeight(textSize)-2, "tick")
	}
}

// niceTicks returns about n round ticks covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []float64{0, 1} // no usable range (NaN or empty): the unit interval
	}
	step := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(step)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= step {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+1e-9; v += step {
		t := math.Round(v/step) * step
		if t == 0 {
			t = 0 // not -0
		}
		out = append(out, t)
	}
	return out
}

// clip limits v to [lo, hi].
func clip(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
