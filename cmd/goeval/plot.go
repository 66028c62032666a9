package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/report/charts"
)

func init() {
	register("plot", "draw per-task scores, the changes against a baseline (--kind compare) or score vs checkpoint (--kind sweep), as PNG or SVG", runPlot)
}

// chartFlags are the chart options plot and report share.
type chartFlags struct {
	metric, sort string
	expand       bool
	topK         int
}

func (c *chartFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.metric, "metric", "", "metric drawn for every task (e.g. acc); default: each task's primary metric — acc_norm when the task reports it, else the first metric of its results entry")
	fs.BoolVar(&c.expand, "expand-groups", false, "draw a group's subtasks (mmlu's subjects) as rows instead of one row for the group")
	fs.StringVar(&c.sort, "sort", "", "row order: score, change or name (default: change with two runs or more, else score)")
	fs.IntVar(&c.topK, "top-k", 0, "sweep: the most-changed tasks drawn besides the groups (default: as many as fit one panel; -1: all, as small multiples)")
}

func (c *chartFlags) options() (charts.Options, error) {
	if !charts.ValidSort(c.sort) {
		return charts.Options{}, errs.BadInputf("--sort %q: use score, change or name", c.sort)
	}
	return charts.Options{Metric: c.metric, ExpandGroups: c.expand, Sort: c.sort, TopK: c.topK}, nil
}

// runPlot draws the runs' scores into a .png or .svg file.
func runPlot(args []string) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	out := fs.String("o", "scores.png", "output file; .png or .svg picks the format")
	kind := fs.String("kind", "scores", "scores (bars per task and run, 95 % intervals), compare (each run's change against the first, with the paired test's 95 % interval; significant changes filled) or sweep (score vs checkpoint)")
	sweep := fs.Bool("sweep", false, "same as --kind sweep")
	var cf chartFlags
	cf.register(fs)
	setUsage(fs, `Usage: goeval plot [flags] RUN [RUN…]
Draws one row per task (a group such as mmlu is one row unless --expand-groups), sorted, with full
task names; the height grows with the number of tasks. The first RUN is the baseline of --kind
compare. --kind sweep puts checkpoints named by step (checkpoint-500) on a step axis and labels
each line at its end. RUN is a results_*.json file or a run folder.
Flags:`)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *sweep {
		*kind = "sweep"
	}
	draw, ok := map[string]func(*report.Comparison, charts.Options) (*charts.Chart, error){
		"scores": charts.ScoresChart, "compare": charts.CompareChart, "sweep": charts.SweepChart}[*kind]
	if !ok {
		return errs.BadInputf("--kind %q: use scores, compare or sweep", *kind)
	}
	o, err := cf.options()
	if err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return errs.BadInputf("plot needs at least one run; see 'goeval plot --help'")
	}
	runs, err := report.LoadAll(fs.Args())
	if err != nil {
		return err
	}
	iters := 1
	if *kind == "compare" {
		iters = 0 // the paired bootstrap's default: its intervals are drawn
	}
	c, err := report.Compare(runs, report.CompareOptions{BootstrapIters: iters})
	if err != nil {
		return err
	}
	ch, err := draw(c, o)
	if err != nil {
		return errs.BadInput(err)
	}
	if err := ch.Save(*out); err != nil {
		return errs.BadInput(err)
	}
	fmt.Fprintf(os.Stderr, "goeval plot: wrote %s\n", *out)
	return nil
}
