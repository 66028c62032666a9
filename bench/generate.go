package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
)

// GenerateOptions configure [Generate].
type GenerateOptions struct {
	// Batches are the batch sizes to measure (each ≥ 1), measured and
	// reported in increasing order: on a GPU the engine keeps a
	// generation call's cache shape for the smaller calls after it. The
	// Opener should give an engine whose batch size is at least the
	// largest, so that each size runs as one batch.
	Batches []int
	// PromptLen is the number of random prompt ids per row (≥ 1).
	PromptLen int
	// Steps is the number of tokens generated per row (≥ 2; the first
	// comes from prefill).
	Steps int
	// Seed seeds the random prompts.
	Seed uint64
	// OnRow, when set, gets each row as soon as its batch size is done.
	OnRow func(GenerateRow)
}

// GenerateRow is the measurement of one batch size.
type GenerateRow struct {
	Backend                 string  // the backend's description
	Batch, PromptLen, Steps int     // rows, prompt ids per row, tokens generated per row
	PrefillTokensPerSecond  float64 // prompt tokens/s in the prefill graphs
	DecodeTokensPerSecond   float64 // generated tokens/s in the decode graphs
	DecodeMsPerStep         float64 // milliseconds per decode step
	CompileTime             time.Duration
	Wall                    time.Duration // wall time of the whole call
}

// GenerateReport is the result of [Generate]: one row per batch size.
type GenerateReport struct {
	Rows []GenerateRow
}

// Generate measures generation throughput: for each batch size B it
// generates o.Steps tokens (greedy, KV cache) for B random prompts of
// o.PromptLen ids. Prefill and decode rates are measured inside the graphs,
// so compilation is excluded (and reported separately). On error the report
// holds the rows done so far.
func Generate(ctx context.Context, open Opener, o GenerateOptions) (*GenerateReport, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	e, err := open()
	if err != nil {
		return nil, err
	}
	defer e.Close()
	rng := rand.New(rand.NewPCG(o.Seed, 0))
	vocab := e.Config().VocabSize
	rep := &GenerateReport{}
	batches := slices.Clone(o.Batches)
	slices.Sort(batches)
	for _, b := range batches {
		reqs := make([]lm.GenerateRequest, b)
		for i := range reqs {
			reqs[i] = lm.GenerateRequest{ContextIDs: randomIDs(rng, o.PromptLen, vocab), MaxTokens: o.Steps}
		}
		g0, s0, start := e.GenStats(), e.Stats(), time.Now()
		if _, err := e.GenerateUntil(ctx, reqs); err != nil {
			return rep, err
		}
		wall := time.Since(start)
		g1, s1 := e.GenStats(), e.Stats()
		row := GenerateRow{Backend: s1.BackendName, Batch: b, PromptLen: o.PromptLen, Steps: o.Steps,
			PrefillTokensPerSecond: rate(g1.PrefillTokens-g0.PrefillTokens, g1.PrefillTime-g0.PrefillTime),
			DecodeTokensPerSecond:  rate(g1.DecodeTokens-g0.DecodeTokens, g1.DecodeTime-g0.DecodeTime),
			CompileTime:            s1.CompileTime - s0.CompileTime, Wall: wall}
		if n := g1.DecodeSteps - g0.DecodeSteps; n > 0 {
			row.DecodeMsPerStep = millis(g1.DecodeTime-g0.DecodeTime) / float64(n)
		}
		rep.Rows = append(rep.Rows, row)
		if o.OnRow != nil {
			o.OnRow(row)
		}
	}
	return rep, nil
}

// check validates the options.
func (o *GenerateOptions) check() error {
	if len(o.Batches) == 0 || o.PromptLen < 1 || o.Steps < 2 {
		return errs.BadInputf("bench: generate needs batch sizes, a prompt length ≥ 1 and steps ≥ 2")
	}
	for _, b := range o.Batches {
		if b < 1 {
			return errs.BadInputf("bench: batch size %d must be ≥ 1", b)
		}
	}
	return nil
}

// rate is tokens per second (0 when nothing ran).
func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// WriteText writes the row as the line `goeval bench generate` prints.
func (r GenerateRow) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "backend=%s batch=%d prompt_len=%d steps=%d prefill_tok_per_s=%.1f decode_tok_per_s=%.2f decode_ms_per_step=%.1f compile_ms=%.0f wall_s=%.1f\n",
		r.Backend, r.Batch, r.PromptLen, r.Steps, r.PrefillTokensPerSecond, r.DecodeTokensPerSecond, r.DecodeMsPerStep,
		millis(r.CompileTime), r.Wall.Seconds())
	return err
}

// WriteText writes one line per row, as `goeval bench generate` prints.
func (r *GenerateReport) WriteText(w io.Writer) error {
	for _, row := range r.Rows {
		if err := row.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}
