package judge

import (
	"embed"
	"html/template"
	"io"
)

//go:embed report.html.tmpl
var htmlFS embed.FS

var htmlTpl = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"pct": func(x float64) string { return fmtFloat(100*x, 1) + " %" },
}).ParseFS(htmlFS, "report.html.tmpl"))

// HTMLReport is what WriteHTML shows: a judging run's summary and records.
type HTMLReport struct {
	Title    string
	Mode     string // "pairwise" or "single"
	Judge    string
	Models   []string
	Pairs    []PairSummary
	Scores   []ScoreSummary
	PairRecs []PairRecord
	ScoreRec []ScoreRecord
}

// WriteHTML writes one self-contained page (inline CSS, no scripts): the
// summary table, then every judged prompt with the answers side by side,
// each verdict with the judge's explanation, and the result.
func WriteHTML(w io.Writer, r HTMLReport) error { return htmlTpl.Execute(w, r) }
