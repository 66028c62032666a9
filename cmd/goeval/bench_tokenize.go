package main

import (
	"context"
	"flag"
	"os"
	"runtime"
	"time"

	"github.com/goeval/goeval/bench"
	"github.com/goeval/goeval/internal/errs"
)

// benchTokenize implements `goeval bench tokenize` (see bench.Tokenize).
func benchTokenize(args []string) error {
	fs := flag.NewFlagSet("bench tokenize", flag.ContinueOnError)
	var o bench.TokenizeOptions
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer directory or tokenizer.json file")
	fs.StringVar(&o.Corpus, "corpus", "models/tokenizer/testdata/corpus.jsonl.gz", "JSON lines of {\"text\": str} (optionally .gz)")
	fs.DurationVar(&o.MinTime, "time", 3*time.Second, "minimum measuring time per mode")
	fs.IntVar(&o.Threads, "threads", runtime.NumCPU(), "goroutines for the batch mode")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if o.Tokenizer == "" {
		return errs.BadInputf("--tokenizer is required")
	}
	r, err := bench.Tokenize(context.Background(), o)
	if err != nil {
		return err
	}
	return r.WriteText(os.Stdout)
}
