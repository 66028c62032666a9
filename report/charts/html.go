package charts

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/goeval/goeval/report"
)

//go:embed report.html.tmpl
var htmlTemplate string

// HTMLOptions tunes WriteHTML.
type HTMLOptions struct {
	Title       string  // page title; "goeval report" when empty
	MaxRegress  int     // significant regressions shown with examples; 0 means 5
	MaxExamples int     // example docs per regression; 0 means 3
	Chart       Options // what the charts show (metric, groups, sort)
}

// Example is one doc that a run got wrong and the baseline got right.
type Example struct{ Base, Other report.SampleView }

// Regression is a significant regression with example docs.
type Regression struct {
	Run      string
	Row      report.Row
	Change   report.Change
	Value    float64 // the run's value (the baseline's is Row.Cells[0])
	Examples []Example
}

type htmlPage struct {
	Title       string
	Cmp         *report.Comparison
	Runs        []*report.Run
	Summary     [][]string
	Table       [][]string
	Classes     [][]string
	ScoresSVG   template.HTML
	CompareSVG  template.HTML
	SweepSVG    template.HTML
	Regressions []Regression
}

// WriteHTML writes one self-contained HTML page for the runs (the first is
// the baseline): inline CSS and SVG charts, no scripts and no external
// URLs, so it opens anywhere without a network.
func WriteHTML(w io.Writer, runs []*report.Run, c *report.Comparison, o HTMLOptions) error {
	if o.Title == "" {
		o.Title = "goeval report"
	}
	page := htmlPage{Title: o.Title, Cmp: c, Runs: runs, Table: c.TableRows()}
	if len(runs) > 1 {
		page.Summary = c.SummaryRows()
	}
	page.Classes = rowClasses(c)
	var err error
	if page.ScoresSVG, err = inlineSVG(ScoresChart(c, o.Chart)); err != nil {
		return err
	}
	if len(runs) >= 2 {
		if page.CompareSVG, err = inlineSVG(CompareChart(c, o.Chart)); err != nil {
			return err
		}
	}
	if len(runs) >= 3 {
		if page.SweepSVG, err = inlineSVG(SweepChart(c, o.Chart)); err != nil {
			return err
		}
	}
	if page.Regressions, err = regressions(runs, c, o); err != nil {
		return err
	}
	funcs := template.FuncMap{"num": report.FormatNum, "signed": report.FormatSigned,
		"pct": report.FormatPct, "p": report.FormatP, "tail": tailText, "add": func(a, b int) int { return a + b }}
	t, err := template.New("report").Funcs(funcs).Parse(htmlTemplate)
	if err != nil {
		return fmt.Errorf("html template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, page); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// rowClasses gives each cell of Comparison.TableRows a CSS class for its verdict.
func rowClasses(c *report.Comparison) [][]string {
	out := make([][]string, len(c.Rows))
	for i, row := range c.Rows {
		cls := []string{"", "", ""}
		for j := 1; j < len(c.Runs); j++ {
			v := row.Changes[j].Verdict
			cls = append(cls, "", v, v, "", "", v)
		}
		out[i] = cls
	}
	return out
}

// inlineSVG renders a chart as SVG without the XML prolog, for embedding.
// A chart that cannot be drawn (no score metrics) is left out.
func inlineSVG(ch *Chart, planErr error) (template.HTML, error) {
	if planErr != nil {
		return "", nil
	}
	b, err := ch.Render("svg")
	if err != nil {
		return "", err
	}
	s := string(b)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s), nil
}

// tailText keeps the last n characters of a long prompt.
func tailText(n int, s string) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}

// regressions lists the largest significant regressions (by relative
// size) with docs the baseline got right and the run got wrong.
func regressions(runs []*report.Run, c *report.Comparison, o HTMLOptions) ([]Regression, error) {
	if o.MaxRegress == 0 {
		o.MaxRegress = 5
	}
	if o.MaxExamples == 0 {
		o.MaxExamples = 3
	}
	var out []Regression
	for j := 1; j < len(runs); j++ {
		for _, row := range c.Rows {
			if ch := row.Changes[j]; ch.Verdict == "regressed" {
				out = append(out, Regression{Run: c.Runs[j], Row: row, Change: ch, Value: row.Cells[j].Value})
			}
		}
	}
	size := func(r Regression) float64 {
		if math.IsNaN(r.Change.Rel) {
			return math.Abs(r.Change.Abs)
		}
		return math.Abs(r.Change.Rel)
	}
	sort.SliceStable(out, func(a, b int) bool { return size(out[a]) > size(out[b]) })
	if len(out) > o.MaxRegress {
		out = out[:o.MaxRegress]
	}
	for i := range out {
		j := indexOf(c.Runs, out[i].Run)
		ex, err := examples(runs[0], runs[j], out[i].Row, o.MaxExamples)
		if err != nil {
			return nil, err
		}
		out[i].Examples = ex
	}
	return out, nil
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// examples finds up to n docs scored 1 by base and 0 by other on the row's
// metric and filter.
func examples(base, other *report.Run, row report.Row, n int) ([]Example, error) {
	sa, err := base.Samples(row.Task)
	if err != nil {
		return nil, err
	}
	sb, err := other.Samples(row.Task)
	if err != nil {
		return nil, err
	}
	byDoc := map[int]report.Sample{}
	for _, s := range sb {
		if s.Filter == row.Filter {
			byDoc[s.DocID] = s
		}
	}
	var out []Example
	for _, s := range sa {
		t, ok := byDoc[s.DocID]
		if s.Filter != row.Filter || !ok || len(out) >= n {
			continue
		}
		va, okA := s.Values.Float(row.Metric)
		vb, okB := t.Values.Float(row.Metric)
		if okA && okB && va == 1 && vb == 0 {
			out = append(out, Example{Base: report.ViewSample(s), Other: report.ViewSample(t)})
		}
	}
	return out, nil
}
