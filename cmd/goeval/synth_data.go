package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

// runSynthData is "goeval synth data": deterministic synthetic datasets in
// the Hugging Face schema of each built-in task.
func runSynthData(args []string) error {
	fs := flag.NewFlagSet("synth data", flag.ContinueOnError)
	task := fs.String("task", "", "built-in task or group names, comma-separated, or \"all\" for every task (required)")
	out := fs.String("out", "", "output folder; files go to OUT/ORG/NAME/CONFIG/<split>-00000-of-00001.parquet, so pass OUT as --data-dir (required)")
	n := fs.Int("n", 30, "documents per split (few-shot tasks need at least 9 in the pool)")
	verbose := fs.Bool("v", false, "list every file written")
	seed := fs.Uint64("seed", 0, "seed for the synthetic text")
	setUsage(fs, "Usage: goeval synth data --task NAME[,NAME...]|all --out DIR [--n N] [--seed N]")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if *task == "" || *out == "" {
		return errs.BadInputf("synth data needs --task and --out")
	}
	if *n < 1 || *n > 100000 {
		return errs.BadInputf("--n %d out of range: use 1..100000", *n)
	}
	if err := checkOutFolder(*out); err != nil {
		return err
	}
	files, err := synthData(*task, *out, synth.DataOptions{N: *n, Seed: *seed})
	if err != nil {
		return err
	}
	if *verbose {
		for _, f := range files {
			fmt.Println(f)
		}
	}
	fmt.Printf("wrote %d dataset files under %s (use it as --data-dir)\n", len(files), *out)
	return nil
}

// checkOutFolder rejects an --out path that is a file (synth writes a
// folder there).
func checkOutFolder(out string) error {
	if st, err := os.Stat(out); err == nil && !st.IsDir() {
		return errs.BadInputf("--out %s is a file, not a folder: give a folder to write into", out)
	}
	return nil
}

// synthData writes the datasets of --task: "all", or task and group names
// separated by commas (a group stands for its tasks, as in goeval run).
// The names are checked before any file is written.
func synthData(task, out string, o synth.DataOptions) ([]string, error) {
	if task == "all" {
		return synth.Data(task, out, o)
	}
	names := strings.Split(task, ",")
	if slices.ContainsFunc(names, func(n string) bool { return strings.TrimSpace(n) == "" }) {
		return nil, errs.BadInputf("--task has an empty name in %q (a stray comma?)", task)
	}
	ts, _, err := tasks.NewIndex().ExpandUnion(names)
	if err != nil {
		return nil, err
	}
	var files []string
	seen := map[string]bool{}
	for _, t := range ts {
		fs, err := synth.Data(t.Name(), out, o)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return files, nil
}
