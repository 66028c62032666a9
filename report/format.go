package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// Formats accepted by Comparison.Write.
var Formats = []string{"table", "markdown", "csv", "json"}

// Write renders the comparison as "table" (aligned text for a terminal),
// "markdown", "csv" or "json".
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case "table", "":
		return c.writeText(w, false)
	case "markdown", "md":
		return c.writeText(w, true)
	case "csv":
		return c.writeCSV(w)
	case "json":
		b, err := py.JSON(c.jsonObject(), true)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	return fmt.Errorf("unknown format %q (use %s)", format, strings.Join(Formats, ", "))
}

// fmtNum prints a metric value compactly.
func fmtNum(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	if math.IsInf(f, 0) {
		return fmtValue(f)
	}
	if a := math.Abs(f); a >= 1000 || (a < 0.001 && a != 0) {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	return strconv.FormatFloat(f, 'f', 4, 64)
}

func fmtSigned(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	s := fmtNum(f)
	if f >= 0 {
		s = "+" + s
	}
	return s
}

func fmtPct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

func fmtP(ch Change) string {
	if ch.Test == "" {
		return "-"
	}
	if ch.P < 0.0001 {
		return "<0.0001"
	}
	return strconv.FormatFloat(ch.P, 'f', 4, 64)
}

func mark(ch Change) string {
	switch ch.Verdict {
	case "improved":
		return "better*"
	case "regressed":
		return "WORSE*"
	}
	return ""
}

func cellText(c Cell) string {
	if !c.OK {
		return "-"
	}
	if c.StderrOK {
		return fmtValue(c.Value) + " ±" + fmtValue(c.Stderr)
	}
	return fmtValue(c.Value)
}

// fmtValue prints a value read from a results file: as fmtNum, but NaN
// and ±Inf (a model whose numerics broke) as Python prints them, nan, inf
// and -inf, where fmtNum's "-" would read as missing.
func fmtValue(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return fmtNum(f)
}

// testText is the test column: the test's name, or "n/a" for values that
// are not comparable (NaN or ±Inf).
func testText(ch Change) string {
	if ch.NonFinite {
		return "n/a"
	}
	return ch.Test
}

// tableRows builds the header and the cells of the main table.
func (c *Comparison) tableRows() [][]string {
	head := []string{"task", "metric", c.Runs[0]}
	for _, r := range c.Runs[1:] {
		head = append(head, r, "change", "rel", "test", "p", "")
	}
	out := [][]string{head}
	for _, row := range c.Rows {
		line := []string{row.Task, row.Key, cellText(row.Cells[0])}
		for j := 1; j < len(c.Runs); j++ {
			ch := row.Changes[j]
			line = append(line, cellText(row.Cells[j]), fmtSigned(ch.Abs), fmtPct(ch.Rel), testText(ch), fmtP(ch), mark(ch))
		}
		out = append(out, line)
	}
	return out
}

func (c *Comparison) writeText(w io.Writer, md bool) error {
	ew := &errWriter{w: w}
	writeGrid(ew, c.tableRows(), md)
	fmt.Fprintln(ew)
	for j := 1; j < len(c.Runs); j++ {
		c.writeVerdicts(ew, j, md)
	}
	writeGrid(ew, c.summaryRows(), md)
	fmt.Fprintf(ew, "\n* significant at 95 %% (McNemar exact test for 0/1 metrics, paired bootstrap for others, z-test from stderrs without samples); baseline: %s\n"+
		"avg score: mean of higher-is-better metrics in [0,1]; avg gain: mean relative change over all metrics, + = better\n", c.Runs[0])
	if c.hasNonFinite() {
		fmt.Fprintln(ew, "n/a: not comparable, a value is NaN or ±Inf (a model whose numerics broke); such rows count in no summary")
	}
	return ew.err
}

// hasNonFinite reports whether any change is not comparable.
func (c *Comparison) hasNonFinite() bool {
	for _, row := range c.Rows {
		for _, ch := range row.Changes {
			if ch.NonFinite {
				return true
			}
		}
	}
	return false
}

func (c *Comparison) writeVerdicts(w io.Writer, j int, md bool) {
	bullet := "  "
	if md {
		bullet = "- "
	}
	for _, verdict := range []string{"improved", "regressed"} {
		var lines []string
		for _, row := range c.Rows {
			ch := row.Changes[j]
			if ch.Verdict == verdict {
				lines = append(lines, fmt.Sprintf("%s%s %s: %s → %s (%s, %s, p=%s)", bullet, row.Task, row.Key,
					fmtNum(row.Cells[0].Value), fmtNum(row.Cells[j].Value), fmtSigned(ch.Abs), fmtPct(ch.Rel), fmtP(ch)))
			}
		}
		title := map[string]string{"improved": "Improvements", "regressed": "Regressions"}[verdict]
		fmt.Fprintf(w, "%s of %s vs %s: %d\n", title, c.Runs[j], c.Runs[0], len(lines))
		if md && len(lines) > 0 {
			fmt.Fprintln(w)
		}
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintln(w)
	}
}

// summaryRows is the across-runs summary: average score and perplexity
// before/after with relative change, counts, and the average change.
func (c *Comparison) summaryRows() [][]string {
	out := [][]string{{"run", "avg score", "vs " + c.Runs[0], "perplexity", "vs " + c.Runs[0],
		"improved", "regressed", "avg score change", "avg gain"}}
	for _, s := range c.Summaries {
		out = append(out, []string{s.Run,
			fmtNum(s.Score), fmt.Sprintf("%s→%s (%s)", fmtNum(s.ScoreBase), fmtNum(s.Score), fmtPct(s.ScoreRel)),
			fmtNum(s.Ppl), fmt.Sprintf("%s→%s (%s)", fmtNum(s.PplBase), fmtNum(s.Ppl), fmtPct(s.PplRel)),
			strconv.Itoa(s.Improved), strconv.Itoa(s.Regressed),
			fmtSigned(s.MeanAbs), fmtPct(s.MeanGain)})
	}
	return out
}

// writeGrid prints rows as aligned columns, or as a markdown table.
func writeGrid(w io.Writer, rows [][]string, md bool) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for n, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if md {
				b.WriteString("| " + strings.ReplaceAll(c, "|", `\|`) + pad + " ")
			} else {
				b.WriteString(c + pad + "  ")
			}
		}
		if md {
			b.WriteString("|")
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		if md && n == 0 {
			var sep strings.Builder
			for _, wd := range widths {
				sep.WriteString("|" + strings.Repeat("-", wd+2))
			}
			fmt.Fprintln(w, sep.String()+"|")
		}
	}
}

func (c *Comparison) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"task", "metric", "filter", "baseline", "run", "baseline_value", "value",
		"abs_change", "rel_change", "test", "p", "n", "b", "c", "ci_low", "ci_high", "significant", "verdict"})
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	for _, row := range c.Rows {
		for j := 1; j < len(c.Runs); j++ {
			ch := row.Changes[j]
			cw.Write([]string{row.Task, row.Metric, row.Filter, c.Runs[0], c.Runs[j],
				g(row.Cells[0].Value), g(row.Cells[j].Value), g(ch.Abs), g(ch.Rel), ch.Test, g(ch.P),
				strconv.Itoa(ch.N), strconv.Itoa(ch.B), strconv.Itoa(ch.C), g(ch.Low), g(ch.High),
				strconv.FormatBool(ch.Significant), ch.Verdict})
		}
	}
	cw.Flush()
	return cw.Error()
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
