package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/goeval/goeval/lm"
)

// benchScore implements `goeval bench score`: tokens/s of the scoring path
// on seeded random requests (context + continuation ids), excluding graph
// compilation, which is reported separately.
func benchScore(args []string) error {
	fs := flag.NewFlagSet("bench score", flag.ContinueOnError)
	var f scoreFlags
	f.register(fs)
	n := fs.Int("requests", 16, "number of requests")
	ctxLen := fs.Int("context", 120, "context tokens per request")
	contLen := fs.Int("continuation", 8, "continuation tokens per request")
	seed := fs.Uint64("seed", 1, "seed of the random token ids")
	cpuProfile := fs.String("cpuprofile", "", "write a pprof CPU profile of the timed pass to this file")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval bench score --model DIR [flags]")
		fmt.Fprintln(fs.Output(), "Scores --requests random requests twice (the first pass compiles) and prints one line: backend, batch, buckets, tokens/s, compile time, peak RSS.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return badInput(err)
	}
	if *n < 1 || *ctxLen < 1 || *contLen < 1 {
		return badInputf("--requests, --context and --continuation must be ≥ 1")
	}
	start := time.Now()
	e, err := f.open()
	if err != nil {
		return err
	}
	defer e.Close()
	load := time.Since(start)
	reqs := randomRequests(*n, *ctxLen, *contLen, e.Config().VocabSize, *seed)
	if _, err := e.Loglikelihood(context.Background(), reqs); err != nil { // compiles
		return err
	}
	warm := e.Stats()
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	t0 := time.Now()
	if _, err := e.Loglikelihood(context.Background(), reqs); err != nil {
		return err
	}
	wall := time.Since(t0)
	s := e.Stats()
	tokens := s.Tokens - warm.Tokens
	fmt.Printf("bench score: model=%s backend=%s device=%s dtype=%s batch=%d bucket=B%d×T%d×K%d requests=%d tokens=%d "+
		"time=%.2fs tokens/s=%.1f compile_ms=%.1f graphs=%d load_s=%.1f peak_rss_mb=%.0f weights_f32_mb=%.0f\n",
		f.model, s.Backend, f.device, f.dtype, e.BatchSize(), s.LastB, s.LastT, s.LastK, *n, tokens,
		wall.Seconds(), float64(tokens)/wall.Seconds(), float64(s.CompileTime.Microseconds())/1000, s.Compiles,
		load.Seconds(), float64(peakRSS())/(1<<20), float64(e.NumParameters())*4/(1<<20))
	return nil
}

// startCPUProfile starts a pprof CPU profile; stop ends it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, badInputf("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// randomRequests makes n seeded requests of ctxLen + contLen random ids.
func randomRequests(n, ctxLen, contLen, vocab int, seed uint64) []lm.LoglikelihoodRequest {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := make([]lm.LoglikelihoodRequest, n)
	for i := range out {
		ids := make([]int32, ctxLen+contLen)
		for j := range ids {
			ids[j] = int32(r.IntN(vocab))
		}
		out[i] = lm.LoglikelihoodRequest{ContextIDs: ids[:ctxLen], ContinuationIDs: ids[ctxLen:]}
	}
	return out
}

// peakRSS is the process's peak resident set (VmHWM) in bytes, 0 if unknown.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
