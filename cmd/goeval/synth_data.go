package main

import (
	"flag"
	"fmt"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/synth"
)

// runSynthData is "goeval synth data": deterministic synthetic datasets in
// the Hugging Face schema of each built-in task.
func runSynthData(args []string) error {
	fs := flag.NewFlagSet("synth data", flag.ContinueOnError)
	task := fs.String("task", "", "built-in task name, or \"all\" for every task (required)")
	out := fs.String("out", "", "output folder; files go to OUT/ORG/NAME/CONFIG/<split>-00000-of-00001.parquet, so pass OUT as --data-dir (required)")
	n := fs.Int("n", 30, "documents per split (few-shot tasks need at least 9 in the pool)")
	verbose := fs.Bool("v", false, "list every file written")
	seed := fs.Uint64("seed", 0, "seed for the synthetic text")
	setUsage(fs, "Usage: goeval synth data --task NAME|all --out DIR [--n N] [--seed N]")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if *task == "" || *out == "" {
		return errs.BadInputf("synth data needs --task and --out")
	}
	if *n < 1 || *n > 100000 {
		return errs.BadInputf("--n %d out of range: use 1..100000", *n)
	}
	files, err := synth.Data(*task, *out, synth.DataOptions{N: *n, Seed: *seed})
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
