package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"time"

	"github.com/goeval/goeval/bench"
	"github.com/goeval/goeval/internal/errs"
)

func init() {
	registerBench("serve", "load test of an OpenAI-compatible server (goeval serve): clients, req/s, latency percentiles", benchServe)
}

// benchServe implements `goeval bench serve` (see bench.ServeLoad).
func benchServe(args []string) error {
	fs := flag.NewFlagSet("bench serve", flag.ContinueOnError)
	var o bench.ServeLoadOptions
	fs.StringVar(&o.URL, "url", "http://127.0.0.1:8000", "the server's root URL")
	fs.IntVar(&o.Clients, "clients", 64, "concurrent clients, each with one request in flight")
	fs.DurationVar(&o.Duration, "duration", 60*time.Second, "how long clients keep sending")
	tokens := fs.String("max-tokens", "8", "greedy tokens generated per request; a comma list (8,64) gives client c the c-th length, cycling, and adds each length's median latency to the report")
	setUsage(fs, "Usage: goeval bench serve [--url URL] [--clients 64] [--duration 60s] [--max-tokens 8[,64…]]\n"+
		"Sends greedy completions with echo, a unique prompt each, from --clients clients for --duration, checks that every answer is 200 and starts with its own prompt, and prints requests/s, completion tokens/s and latency percentiles. Exits 1 if any request failed or got another's answer.")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if o.Clients < 1 || o.Duration <= 0 {
		return errs.BadInputf("--clients and --duration must be positive")
	}
	mix, err := parseCounts("max-tokens", *tokens)
	if err != nil {
		return err
	}
	if o.MaxTokens = mix[0]; len(mix) > 1 {
		o.Mix = mix
	}
	ctx, stop := signalContext()
	defer stop()
	r, err := bench.ServeLoad(ctx, o)
	if err != nil {
		return errs.BadInputf("%v", err)
	}
	if err := r.WriteText(os.Stdout); err != nil {
		return err
	}
	if r.Errors > 0 || r.Mismatched > 0 {
		return errors.New("bench serve: some requests failed or got another request's answer (see above)")
	}
	return context.Cause(ctx)
}
