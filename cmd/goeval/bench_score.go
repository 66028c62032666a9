package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/goeval/goeval/bench"
	"github.com/goeval/goeval/internal/errs"
)

// benchScore implements `goeval bench score` (see bench.Score).
func benchScore(args []string) error {
	fs := flag.NewFlagSet("bench score", flag.ContinueOnError)
	var f scoreFlags
	f.register(fs)
	f.registerAdapter(fs) // a QLoRA run's memory and speed
	o := bench.ScoreOptions{}
	fs.IntVar(&o.Requests, "requests", 16, "number of requests")
	fs.IntVar(&o.Context, "context", 120, "context tokens per request")
	fs.IntVar(&o.Continuation, "continuation", 8, "continuation tokens per request")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the random token ids")
	cpuProfile := fs.String("cpuprofile", "", "write a pprof CPU profile of the timed pass to this file")
	opProfile := fs.Int("op-profile", 0, "pure-Go backend: time every op of the timed pass and print the N costliest op-and-shape entries to stderr (0: off)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval bench score --model DIR [flags]")
		fmt.Fprintln(fs.Output(), "Scores --requests random requests twice (the first pass compiles) and prints one line: backend, batch, buckets, tokens/s, compile time, peak RSS.")
		fs.PrintDefaults()
	}
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if o.Requests < 1 || o.Context < 1 || o.Continuation < 1 {
		return errs.BadInputf("--requests, --context and --continuation must be ≥ 1")
	}
	o.Model, o.DType = f.model, f.dtype
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile) // before any work: a bad path fails now
		if err != nil {
			return errs.BadInputf("--cpuprofile: %v", err)
		}
		defer f.Close()
		o.Profile = func() (func(), error) { return startCPUProfile(f) }
	}
	if *opProfile > 0 {
		cpu := o.Profile
		o.Profile = func() (func(), error) {
			stopOps := bench.OpProfile(os.Stderr, *opProfile)
			if cpu == nil {
				return stopOps, nil
			}
			stopCPU, err := cpu()
			if err != nil {
				stopOps()
				return nil, err
			}
			return func() { stopCPU(); stopOps() }, nil
		}
	}
	r, err := bench.Score(context.Background(), f.open, o)
	if err != nil {
		return err
	}
	return r.WriteText(os.Stdout)
}

// startCPUProfile starts a pprof CPU profile into f; stop ends it.
func startCPUProfile(f *os.File) (stop func(), err error) {
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return pprof.StopCPUProfile, nil
}
