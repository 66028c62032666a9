package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goeval/goeval/lm"
)

func init() {
	registerBench("generate", "generation throughput: prefill and decode tokens/s at several batch sizes", benchGenerate)
}

// benchGenerate implements `goeval bench generate`: for each batch size B
// it generates `--steps` tokens for B random prompts of `--prompt-len`
// tokens (greedy, KV cache) and prints prefill and decode tokens/s,
// measured inside the graphs (compilation excluded: it is reported
// separately).
func benchGenerate(args []string) error {
	fs := flag.NewFlagSet("bench generate", flag.ContinueOnError)
	var f scoreFlags
	f.register(fs)
	batches := fs.String("batches", "1,8,32", "comma-separated batch sizes (rows decoded together)")
	promptLen := fs.Int("prompt-len", 64, "prompt tokens per row (random ids)")
	steps := fs.Int("steps", 8, "tokens generated per row (the first comes from prefill)")
	seed := fs.Uint64("seed", 1, "seed of the random prompts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval bench generate --model DIR [--batches 1,8,32] [--prompt-len N] [--steps N] [flags]")
		fmt.Fprintln(fs.Output(), "Prints one line per batch size: prefill and decode tokens/s (graph time, compiles excluded).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	sizes, err := parseBatches(*batches)
	if err != nil {
		return err
	}
	if *promptLen < 1 || *steps < 2 {
		return badInputf("--prompt-len must be ≥ 1 and --steps ≥ 2")
	}
	f.batch = slices.Max(sizes) // the engine's batch; a call with b requests runs b rows (rounded up to a power of two)
	e, err := f.open()
	if err != nil {
		return err
	}
	defer e.Close()
	rng := rand.New(rand.NewPCG(*seed, 0))
	vocab := e.Config().VocabSize
	for _, b := range sizes {
		reqs := make([]lm.GenerateRequest, b)
		for i := range reqs {
			ids := make([]int32, *promptLen)
			for j := range ids {
				ids[j] = int32(rng.IntN(vocab))
			}
			reqs[i] = lm.GenerateRequest{ContextIDs: ids, MaxTokens: *steps}
		}
		g0, s0, start := e.GenStats(), e.Stats(), time.Now()
		if _, err := e.GenerateUntil(context.Background(), reqs); err != nil {
			return err
		}
		wall := time.Since(start)
		g1, s1 := e.GenStats(), e.Stats()
		pre := rate(g1.PrefillTokens-g0.PrefillTokens, g1.PrefillTime-g0.PrefillTime)
		dec := rate(g1.DecodeTokens-g0.DecodeTokens, g1.DecodeTime-g0.DecodeTime)
		msStep := 0.0
		if n := g1.DecodeSteps - g0.DecodeSteps; n > 0 {
			msStep = float64((g1.DecodeTime - g0.DecodeTime).Microseconds()) / 1000 / float64(n)
		}
		fmt.Printf("backend=%s batch=%d prompt_len=%d steps=%d prefill_tok_per_s=%.1f decode_tok_per_s=%.2f decode_ms_per_step=%.1f compile_ms=%.0f wall_s=%.1f\n",
			s1.BackendName, b, *promptLen, *steps, pre, dec, msStep, float64((s1.CompileTime-s0.CompileTime).Microseconds())/1000, wall.Seconds())
	}
	return nil
}

// parseBatches parses --batches.
func parseBatches(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, badInputf("--batches %q: want positive integers separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// rate is tokens per second (0 when nothing ran).
func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
