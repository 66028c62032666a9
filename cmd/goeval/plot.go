package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/report"
)

func init() {
	register("plot", "draw per-task scores with error bars, or score vs checkpoint (--sweep), as PNG or SVG", runPlot)
}

// runPlot draws the runs' scores into a .png or .svg file.
func runPlot(args []string) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	out := fs.String("o", "scores.png", "output file; .png or .svg picks the format")
	sweep := fs.Bool("sweep", false, "draw score vs checkpoint lines (runs in argument order) instead of bars")
	setUsage(fs, `Usage: goeval plot [flags] RUN [RUN…]
Draws the score metrics (higher is better, values in [0,1]) of the runs: bars per task with 95 %
error bars (±1.96 stderr), or with --sweep one line per task across the runs, e.g. checkpoints.
RUN is a results_*.json file or a run folder.
Flags:`)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return errs.BadInputf("plot needs at least one run; see 'goeval plot --help'")
	}
	runs, err := report.LoadAll(fs.Args())
	if err != nil {
		return err
	}
	c, err := report.Compare(runs, report.CompareOptions{BootstrapIters: 1})
	if err != nil {
		return err
	}
	draw := report.ScoresPlot
	if *sweep {
		draw = report.SweepPlot
	}
	p, err := draw(c)
	if err != nil {
		return errs.BadInput(err)
	}
	if err := report.SavePlot(p, *out); err != nil {
		return errs.BadInput(err)
	}
	fmt.Fprintf(os.Stderr, "goeval plot: wrote %s\n", *out)
	return nil
}
