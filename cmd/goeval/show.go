package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/report"
)

func init() {
	register("show", "show a run's samples: prompt, choices with gold and pick, right/wrong, task statistics", runShow)
}

type showOpts struct {
	task, filter, changedVs string
	n                       int
	wrong, stats            bool
}

// runShow prints samples of one task of one run, or its summary tables.
func runShow(args []string) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	var o showOpts
	fs.StringVar(&o.task, "task", "", "task whose samples to show (without it: the run's summary tables)")
	fs.StringVar(&o.filter, "filter", "", "filter of the samples lines (default: the first in the file)")
	fs.IntVar(&o.n, "n", 5, "show at most N docs (0: all)")
	fs.BoolVar(&o.wrong, "wrong", false, "only docs the model got wrong")
	fs.StringVar(&o.changedVs, "changed-vs", "", "only docs whose right/wrong differs in this other run (results file or folder)")
	fs.BoolVar(&o.stats, "stats", false, "print per-task statistics before the docs")
	setUsage(fs, `Usage: goeval show RUN [--task T [-n N] [--wrong] [--changed-vs OTHER] [--stats]]
Without --task, prints the run's summary tables as lm_eval printed them after the run (tasks under
their groups, then the groups). With --task,
shows samples from a run's samples_<task>_*.jsonl (goeval or lm-eval, written with --log-samples):
the prompt, the choices with the gold answer (*) and the model's pick (>), or the generated and
filtered answer, and whether the doc scored 1. RUN is a results_*.json file or a run folder.
A goeval judge output folder (or its judgements.jsonl) shows each judged prompt instead: the
question, both answers, both verdicts with the judge's explanations, and the result.
Flags:`)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	pos := fs.Args()
	if len(pos) == 1 && o.task == "" {
		if f := judgedFile(pos[0]); f != "" { // a goeval judge output folder
			return showJudged(os.Stdout, f, o.n)
		}
	}
	if len(pos) != 1 {
		return errs.BadInputf("show needs one RUN (a results_*.json file or a run folder); see 'goeval show --help'")
	}
	if o.task == "" {
		run, err := loadOne(pos[0])
		if err != nil {
			return err
		}
		fmt.Print(report.SummaryTable(run.Results))
		return nil
	}
	if o.n < 0 {
		return errs.BadInputf("-n %d out of range: use 0 (all docs) or a count ≥ 1", o.n)
	}
	return show(os.Stdout, pos[0], o)
}

// loadOne loads the single run at path (a results file or a folder).
func loadOne(path string) (*report.Run, error) {
	if _, err := os.Stat(path); errors.Is(err, iofs.ErrNotExist) {
		return nil, errs.BadInputf("run %s does not exist; give a results_*.json file or a run folder", path)
	}
	runs, err := report.LoadRuns(path)
	if err != nil {
		return nil, err
	}
	if len(runs) != 1 {
		return nil, errs.BadInputf("%s holds %d runs; name one results_*.json file or model folder", path, len(runs))
	}
	return runs[0], nil
}

func loadViews(run *report.Run, task, filter string) ([]report.SampleView, error) {
	samples, err := run.Samples(task)
	if err != nil {
		return nil, err
	}
	if p, ok := run.SamplesPath[task]; ok && len(samples) == 0 {
		return nil, errs.BadInputf("%s is empty: no samples of task %q to show", p, task)
	}
	if samples == nil && len(run.SamplesPath) == 0 {
		return nil, errs.BadInputf("%s: the run has no samples files; run it with --log-samples", run.ResultsPath)
	}
	if samples == nil {
		return nil, errs.BadInputf("%s: no samples file for task %q (tasks with samples: %s); run with --log-samples",
			run.ResultsPath, task, strings.Join(keys(run.SamplesPath), ", "))
	}
	if filter == "" {
		filter = samples[0].Filter
	}
	var out []report.SampleView
	for _, s := range samples {
		if s.Filter == filter {
			out = append(out, report.ViewSample(s))
		}
	}
	if len(out) == 0 {
		return nil, errs.BadInputf("task %q has no samples with filter %q", task, filter)
	}
	return out, nil
}

// keys is m's keys, sorted.
func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func show(w io.Writer, path string, o showOpts) error {
	run, err := loadOne(path)
	if err != nil {
		return err
	}
	views, err := loadViews(run, o.task, o.filter)
	if err != nil {
		return err
	}
	var other map[int]report.SampleView
	if o.changedVs != "" {
		orun, err := loadOne(o.changedVs)
		if err != nil {
			return err
		}
		ov, err := loadViews(orun, o.task, views[0].Filter)
		if err != nil {
			return err
		}
		other = map[int]report.SampleView{}
		for _, v := range ov {
			other[v.DocID] = v
		}
	}
	if o.stats {
		printStats(w, run, o.task, views)
	}
	shown := 0
	for _, v := range views {
		if o.wrong && v.Correct() {
			continue
		}
		ov, ok := other[v.DocID]
		if other != nil && (!ok || ov.Correct() == v.Correct()) {
			continue
		}
		if o.n > 0 && shown >= o.n {
			break
		}
		printView(w, v, ov, other != nil)
		shown++
	}
	fmt.Fprintf(w, "%d of %d docs shown (task %s, filter %s)\n", shown, len(views), o.task, views[0].Filter)
	return nil
}
