package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/report/charts"
)

func init() {
	register("report", "write a self-contained HTML report of one or more runs (RUN… -o report.html)", runReport)
}

// runReport renders the runs (the first is the baseline) into one HTML file.
func runReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("o", "report.html", "output HTML file")
	title := fs.String("title", "goeval report", "page title")
	iters := fs.Int("bootstrap-iters", 10000, "paired bootstrap resamples for metrics that are not 0/1 per doc")
	seed := fs.Uint64("seed", 1234, "bootstrap seed")
	var cf chartFlags
	cf.register(fs)
	setUsage(fs, `Usage: goeval report [flags] RUN [RUN…]
Writes one self-contained HTML page (inline CSS and SVG charts, no scripts, no network needed):
the runs, a summary, the per-task table with significance (see 'goeval compare --help'), the charts
of 'goeval plot' (scores with 95 % intervals; the changes against the first run for two runs or more;
score vs checkpoint for three runs or more), and the largest
significant regressions with example docs. RUN is a results_*.json file or a run folder.
A goeval judge output folder gives its page instead: the summary, then every judged prompt
with the answers side by side and both verdicts with the judge's explanations.
Flags may come before the runs.
Flags:`)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	o, err := cf.options()
	if err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return errs.BadInputf("report needs at least one run (results file or folder); see 'goeval report --help'")
	}
	if fs.NArg() == 1 && judgedFile(fs.Arg(0)) != "" { // a goeval judge output folder
		return reportJudged(filepath.Dir(judgedFile(fs.Arg(0))), *out, *title)
	}
	runs, err := report.LoadAll(fs.Args())
	if err != nil {
		return err
	}
	c, err := report.Compare(runs, report.CompareOptions{BootstrapIters: max(*iters, 1), Seed: *seed})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := charts.WriteHTML(&b, runs, c, charts.HTMLOptions{Title: *title, Chart: o}); err != nil {
		return err
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		return errs.BadInputf("write -o %s: %w", *out, err)
	}
	fmt.Fprintf(os.Stderr, "goeval report: wrote %s (%d runs, %d rows)\n", *out, len(runs), len(c.Rows))
	return nil
}
