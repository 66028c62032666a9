package main

import (
	"context"
	"errors"
	"flag"
	iofs "io/fs"
	"os"
	"runtime"
	"time"

	"github.com/goeval/goeval/bench"
	"github.com/goeval/goeval/internal/errs"
)

// defaultCorpus is bench tokenize's corpus, relative to the repository root.
const defaultCorpus = "models/tokenizer/testdata/corpus.jsonl.gz"

// benchTokenize implements `goeval bench tokenize` (see bench.Tokenize).
func benchTokenize(args []string) error {
	fs := flag.NewFlagSet("bench tokenize", flag.ContinueOnError)
	var o bench.TokenizeOptions
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer directory or tokenizer.json file")
	fs.StringVar(&o.Corpus, "corpus", defaultCorpus, "JSON lines of {\"text\": str} (optionally .gz)")
	fs.DurationVar(&o.MinTime, "time", 3*time.Second, "minimum measuring time per mode")
	fs.IntVar(&o.Threads, "threads", runtime.NumCPU(), "goroutines for the batch mode")
	setUsage(fs, "Usage: goeval bench tokenize --tokenizer DIR|FILE [--corpus FILE] [--time D] [--threads N]\n"+
		"Measures tokenizer encode throughput (MB/s) on the corpus, on one goroutine and on --threads.")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if o.Tokenizer == "" {
		return errs.BadInputf("--tokenizer is required")
	}
	if o.MinTime <= 0 || o.Threads < 1 {
		return errs.BadInputf("--time must be > 0 and --threads ≥ 1")
	}
	if err := checkTokenizerPath(o.Tokenizer); err != nil {
		return err
	}
	if err := checkCorpus(o.Corpus); err != nil {
		return err
	}
	texts, err := bench.ReadCorpus(o.Corpus)
	if err != nil {
		return err
	}
	if len(texts) == 0 {
		return errs.BadInputf("corpus %s has no texts; give JSON lines {\"text\": str}", o.Corpus)
	}
	r, err := bench.Tokenize(context.Background(), o)
	if err != nil {
		return err
	}
	return r.WriteText(os.Stdout)
}

// checkCorpus rejects a --corpus file that does not exist, in words rather
// than as an os error.
func checkCorpus(path string) error {
	_, err := os.Stat(path)
	switch {
	case !errors.Is(err, iofs.ErrNotExist):
		return nil // bench.ReadCorpus names any other problem
	case path == defaultCorpus:
		return errs.BadInputf("no --corpus given, and the default %s is only in the goeval repository; give --corpus FILE", path)
	}
	return errs.BadInputf("corpus %s does not exist", path)
}
