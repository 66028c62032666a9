package main

import (
	"flag"
	"os"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/report"
)

func init() {
	register("compare", "compare runs per task and metric with paired significance tests (A B [C…])", runCompare)
}

// runCompare loads the runs (results files or folders) and prints the
// comparison against the first.
func runCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	format := fs.String("format", "table", "output format: table (terminal), markdown, csv or json")
	iters := fs.Int("bootstrap-iters", 10000, "paired bootstrap resamples for metrics that are not 0/1 per doc")
	seed := fs.Uint64("seed", 1234, "bootstrap seed (results are reproducible for a seed)")
	setUsage(fs, `Usage: goeval compare [flags] A B [C…]
Compares runs against the first (the baseline). Each argument is a results_*.json file or a
folder: a folder gives the newest results file of every model folder under it. Files written by
lm-eval itself work too. Per task and metric: both values, absolute and relative change and a
paired significance test on the samples files (exact McNemar for 0/1 metrics such as acc and
exact_match, paired bootstrap for others; a z-test from the stderrs when samples are missing);
changes significant at 95 % are listed as improvements or regressions, then a summary per run.
Flags:`)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return errs.BadInputf("compare needs at least one run (results file or folder); see 'goeval compare --help'")
	}
	if !validFormat(*format) {
		return errs.BadInputf("--format %q: use one of %s", *format, strings.Join(report.Formats, ", "))
	}
	if *iters < 0 {
		return errs.BadInputf("--bootstrap-iters %d: must be ≥ 0", *iters)
	}
	runs, err := report.LoadAll(fs.Args())
	if err != nil {
		return err
	}
	if len(runs) < 2 {
		return errs.BadInputf("compare needs two runs or more, found %d in %s", len(runs), strings.Join(fs.Args(), " "))
	}
	c, err := report.Compare(runs, report.CompareOptions{BootstrapIters: max(*iters, 1), Seed: *seed})
	if err != nil {
		return err
	}
	return c.Write(os.Stdout, *format)
}

func validFormat(f string) bool {
	for _, x := range report.Formats {
		if f == x {
			return true
		}
	}
	return false
}
