package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/goeval/goeval/bench"
	"github.com/goeval/goeval/internal/errs"
)

func init() {
	registerBench("generate", "generation throughput: prefill and decode tokens/s at several batch sizes", benchGenerate)
}

// benchGenerate implements `goeval bench generate` (see bench.Generate):
// one line per batch size, printed as soon as it is measured.
func benchGenerate(args []string) error {
	fs := flag.NewFlagSet("bench generate", flag.ContinueOnError)
	var f scoreFlags
	f.register(fs)
	o := bench.GenerateOptions{OnRow: func(r bench.GenerateRow) { r.WriteText(os.Stdout) }}
	batches := fs.String("batches", "1,8,32", "comma-separated batch sizes (rows decoded together)")
	fs.IntVar(&o.PromptLen, "prompt-len", 64, "prompt tokens per row (random ids)")
	fs.IntVar(&o.Steps, "steps", 8, "tokens generated per row (the first comes from prefill)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the random prompts")
	cpuProfile := fs.String("cpuprofile", "", "write a pprof CPU profile of the whole run (model load included) to this file")
	memProfile := fs.Bool("mem-profile", false, "pure-Go backend: print the largest working set of intermediates one graph execution held, and the values live at its peak, to stderr at the end")
	opProfile := fs.Int("op-profile", 0, "pure-Go backend: time every op and print the N costliest op-and-shape entries to stderr at the end (0: off)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval bench generate --model DIR [--batches 1,8,32] [--prompt-len N] [--steps N] [flags]")
		fmt.Fprintln(fs.Output(), "Prints one line per batch size: prefill and decode tokens/s (graph time, compiles excluded).")
		fs.PrintDefaults()
	}
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	var err error
	if o.Batches, err = parseCounts("batches", *batches); err != nil {
		return err
	}
	if o.PromptLen < 1 || o.Steps < 2 {
		return errs.BadInputf("--prompt-len must be ≥ 1 and --steps ≥ 2")
	}
	f.batch = slices.Max(o.Batches) // the engine's batch; a call with b requests runs b rows (rounded up to a power of two)
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile) // before any work: a bad path fails now
		if err != nil {
			return errs.BadInputf("--cpuprofile: %v", err)
		}
		defer pf.Close()
		stop, err := startCPUProfile(pf)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *opProfile > 0 {
		defer bench.OpProfile(os.Stderr, *opProfile)()
	}
	if *memProfile {
		defer bench.MemProfile(os.Stderr)()
	}
	_, err = bench.Generate(context.Background(), f.open, o)
	return err
}

// parseCounts parses flag name's comma list of positive integers.
func parseCounts(name, s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, errs.BadInputf("--%s %q: want positive integers separated by commas", name, s)
		}
		out = append(out, n)
	}
	return out, nil
}
