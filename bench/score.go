package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/goeval/goeval/internal/gemm"
	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/internal/procfs"

	"github.com/goeval/goeval/bench/peak"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
)

// ScoreOptions configure [Score].
type ScoreOptions struct {
	// Requests is the number of random requests, each of Context context
	// ids and Continuation continuation ids; all must be ≥ 1.
	Requests, Context, Continuation int
	// Seed seeds the random token ids.
	Seed uint64
	// Model and DType name what the Opener loads; the report repeats the
	// model, and the dtype and device the engine resolved them to.
	Model, DType string
	// PeakTime is how long each of the three peak measurements runs
	// (default 300 ms; negative: no measurement).
	PeakTime time.Duration
	// Profile, when set, is called just before the timed pass; the stop
	// function it returns is called right after it (e.g. to CPU-profile
	// the timed pass only).
	Profile func() (stop func(), err error)
}

// ScoreReport is the result of [Score].
type ScoreReport struct {
	Model, Device, DType string        // Model from the options; Device and DType (resolved) from the engine
	Backend              string        // the engine's backend spec
	Batch                int           // the engine's batch size
	LastB, LastT, LastK  int           // shape of the last batch (the bucket)
	Requests, Tokens     int           // requests and real tokens of the timed pass
	Time                 time.Duration // wall time of the timed pass
	CompileTime          time.Duration // graph compilation, all passes
	Graphs               int           // graphs compiled
	Load                 time.Duration // time the Opener took
	PeakRSS              int64         // peak resident set in bytes (0 if unknown)
	Parameters           int           // model parameters
	FLOPs                float64       // useful f32 FLOPs of the timed pass (ScoreFLOPs)
	Peak                 peak.Result   // the CPU's measured f32 peak (zero on cuda)
	Features             []string      // the CPU's vector features
	// Matmul names the pure-Go backend's matmul micro-kernel (internal/gemm)
	// on device cpu, else the device's compiler ("xla").
	Matmul string
}

// GFLOPS is the model FLOP/s of the timed pass, in GFLOP/s.
func (r *ScoreReport) GFLOPS() float64 { return r.FLOPs / r.Time.Seconds() / 1e9 }

// PercentOfPeak is GFLOPS as a percentage of the measured peak (0 when no
// peak was measured).
func (r *ScoreReport) PercentOfPeak() float64 {
	if r.Peak.GFLOPS <= 0 {
		return 0
	}
	return 100 * r.GFLOPS() / r.Peak.GFLOPS
}

// TokensPerSecond is the scoring throughput of the timed pass.
func (r *ScoreReport) TokensPerSecond() float64 { return float64(r.Tokens) / r.Time.Seconds() }

// Score measures the tokens/s of the scoring path: it opens the engine,
// scores o.Requests seeded random requests once (which compiles the
// graphs) and again (the timed pass). Compilation is reported separately.
func Score(ctx context.Context, open Opener, o ScoreOptions) (*ScoreReport, error) {
	if o.Requests < 1 || o.Context < 1 || o.Continuation < 1 {
		return nil, errs.BadInputf("bench: requests, context and continuation must be ≥ 1")
	}
	pk := measurePeak(o.PeakTime) // before the model: nothing else running
	start := time.Now()
	e, err := open()
	if err != nil {
		return nil, err
	}
	defer e.Close()
	load := time.Since(start)
	reqs := RandomRequests(o.Requests, o.Context, o.Continuation, e.Config().VocabSize, o.Seed)
	if _, err := e.Loglikelihood(ctx, reqs); err != nil { // compiles
		return nil, err
	}
	warm := e.Stats()
	wall, err := timed(o.Profile, func() error {
		_, err := e.Loglikelihood(ctx, reqs)
		return err
	})
	if err != nil {
		return nil, err
	}
	s := e.Stats()
	if e.Device().Device == "cuda" {
		pk = peak.Result{} // the CPU's peak says nothing of a GPU's work
	}
	return &ScoreReport{Model: o.Model, Device: e.Device().Device, DType: e.DType(), Backend: s.Backend, Batch: e.BatchSize(),
		LastB: s.LastB, LastT: s.LastT, LastK: s.LastK, Requests: o.Requests, Tokens: s.Tokens - warm.Tokens,
		Time: wall, CompileTime: s.CompileTime, Graphs: s.Compiles, Load: load, PeakRSS: PeakRSS(),
		Parameters: e.NumParameters(), FLOPs: ScoreFLOPs(e.Config(), reqs), Peak: pk, Features: peak.Features(),
		Matmul: matmulOf(s.Backend)}, nil
}

// matmulOf names what multiplies matrices on backend spec: gemm's kernel
// on goeval's pure-Go backend, simplego's scalar Go, or XLA's compiler.
func matmulOf(spec string) string {
	name, _, _ := strings.Cut(spec, ":")
	switch name {
	case gocpu.Name:
		return "gemm-" + gemm.Kernel()
	case "go":
		return "simplego"
	}
	return "xla"
}

// measurePeak measures the f32 peak for d (0: 300 ms; < 0: not at all).
func measurePeak(d time.Duration) peak.Result {
	switch {
	case d < 0:
		return peak.Result{}
	case d == 0:
		d = 300 * time.Millisecond
	}
	return peak.Measure(d)
}

// timed runs f inside the optional profile hook and returns its wall time.
func timed(profile func() (func(), error), f func() error) (time.Duration, error) {
	if profile != nil {
		stop, err := profile()
		if err != nil {
			return 0, err
		}
		defer stop()
	}
	t0 := time.Now()
	err := f()
	return time.Since(t0), err
}

// WriteText writes the report as the one line `goeval bench score` prints.
func (r *ScoreReport) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "bench score: model=%s backend=%s device=%s dtype=%s batch=%d bucket=B%d×T%d×K%d requests=%d tokens=%d "+
		"time=%.2fs tokens/s=%.1f gflops=%.1f peak_gflops=%.1f pct_peak=%.1f peak_kernel=%s threads=%d cpu=%s "+
		"compile_ms=%.1f graphs=%d load_s=%.1f peak_rss_mb=%.0f weights_f32_mb=%.0f matmul=%s\n",
		r.Model, r.Backend, r.Device, r.DType, r.Batch, r.LastB, r.LastT, r.LastK, r.Requests, r.Tokens,
		r.Time.Seconds(), r.TokensPerSecond(), r.GFLOPS(), r.Peak.GFLOPS, r.PercentOfPeak(), orNone(r.Peak.Kernel), r.Peak.Threads,
		orNone(strings.Join(r.Features, ",")), millis(r.CompileTime), r.Graphs,
		r.Load.Seconds(), float64(r.PeakRSS)/(1<<20), float64(r.Parameters)*4/(1<<20), orNone(r.Matmul))
	return err
}

// orNone is s, or "none" when empty (the line stays key=value).
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// RandomRequests makes n seeded requests of ctxLen + contLen random ids
// below vocab.
func RandomRequests(n, ctxLen, contLen, vocab int, seed uint64) []lm.LoglikelihoodRequest {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := make([]lm.LoglikelihoodRequest, n)
	for i := range out {
		ids := randomIDs(r, ctxLen+contLen, vocab)
		out[i] = lm.LoglikelihoodRequest{ContextIDs: ids[:ctxLen], ContinuationIDs: ids[ctxLen:]}
	}
	return out
}

// randomIDs draws n token ids below vocab.
func randomIDs(r *rand.Rand, n, vocab int) []int32 {
	ids := make([]int32, n)
	for j := range ids {
		ids[j] = int32(r.IntN(vocab))
	}
	return ids
}

// PeakRSS is the process's peak resident set (VmHWM) in bytes, 0 if
// unknown (outside Linux).
func PeakRSS() int64 { return procfs.KB("/proc/self/status", "VmHWM") }
