package metrics

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/goeval/goeval/internal/py"
)

// DefaultBootstrapIters is lm-eval's bootstrap_iters default.
const DefaultBootstrapIters = 100000

// Stderr is lm-eval's stderr for an aggregation (evaluator_utils
// _compute_task_aggregations + api/metrics.stderr_for_metric). ok is false
// where lm-eval writes "N/A": iters <= 0, one value or fewer, or an
// aggregation with neither a closed form nor bootstrap support
// (weighted_perplexity, bits_per_byte, bypass, ...).
//
//   - mean: sample standard deviation (n-1) / √n.
//   - median, perplexity, f1, matthews_corrcoef, nanmean: bootstrap_stderr
//     with iters resamples, bit-for-bit lm-eval's procedure: chunks of
//     min(1000, iters), iters//chunk chunks (so 1500 → 1000 resamples),
//     chunk i drawing with Python's random.Random(i).choices, then the sample
//     standard deviation of the replicate statistics. It is deterministic
//     and independent of --seed.
func Stderr(agg string, values []Value, iters int) (se float64, ok bool, err error) {
	if !HasStderr(agg, len(values), iters) {
		return 0, false, nil
	}
	switch agg {
	case AggMean:
		xs, err := Scalars(values)
		if err != nil {
			return 0, false, fmt.Errorf("stderr %s: %w", agg, err)
		}
		return MeanStderr(xs), true, nil
	case AggMedian, AggPerplexity, AggNanMean:
		xs, err := Scalars(values)
		if err != nil {
			return 0, false, fmt.Errorf("stderr %s: %w", agg, err)
		}
		return Bootstrap(len(xs), iters, func() func([]int) float64 {
			buf := make([]float64, len(xs))
			return func(idx []int) float64 {
				for i, j := range idx {
					buf[i] = xs[j]
				}
				return aggregateScalars(agg, buf)
			}
		}), true, nil
	case AggBLEU, AggChrF, AggTER:
		ts, err := TextPairs(values)
		if err != nil {
			return 0, false, fmt.Errorf("stderr %s: %w", agg, err)
		}
		stats := make([][]int, len(ts)) // per pair once: a resample only sums them
		for i, p := range ts {
			stats[i] = corpusStats[agg](p)
		}
		return Bootstrap(len(ts), iters, func() func([]int) float64 {
			sum := make([]int, len(stats[0]))
			return func(idx []int) float64 {
				clear(sum)
				for _, j := range idx {
					for k, x := range stats[j] {
						sum[k] += x
					}
				}
				return corpusFromStats[agg](sum)
			}
		}), true, nil
	case AggF1, AggMCC:
		ps, err := Pairs(values)
		if err != nil {
			return 0, false, fmt.Errorf("stderr %s: %w", agg, err)
		}
		if _, err := F1Score(ps); err != nil && agg == AggF1 {
			return 0, false, err
		}
		return Bootstrap(len(ps), iters, func() func([]int) float64 {
			buf := make([][2]float64, len(ps))
			return func(idx []int) float64 {
				for i, j := range idx {
					buf[i] = ps[j]
				}
				if agg == AggF1 {
					v, _ := F1Score(buf)
					return v
				}
				return MatthewsCorrcoef(buf)
			}
		}), true, nil
	}
	return 0, false, nil
}

// HasStderr reports whether Stderr gives a value (ok) for aggregation agg
// over n values with iters resamples, without computing it.
func HasStderr(agg string, n, iters int) bool {
	if iters <= 0 || n <= 1 {
		return false
	}
	switch agg {
	case AggMean, AggMedian, AggPerplexity, AggNanMean, AggF1, AggMCC, AggBLEU, AggChrF, AggTER:
		return true
	}
	return false
}

// MeanStderr is lm-eval's mean_stderr: sample_stddev(xs)/sqrt(len(xs)).
func MeanStderr(xs []float64) float64 { return SampleStddev(xs) / math.Sqrt(float64(len(xs))) }

// SampleStddev is lm-eval's sample_stddev (n-1 denominator, plain sums).
func SampleStddev(xs []float64) float64 {
	mu := Mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - mu) * (x - mu)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

// Bootstrap returns the sample standard deviation of a statistic over
// lm-eval's bootstrap resamples of n items (see Stderr). newStat is called
// once per worker goroutine and returns that worker's statistic function,
// which receives the resampled indices (so it may keep scratch buffers).
// Chunks run in parallel and land in order: the result is identical to a
// serial run and to lm-eval's.
func Bootstrap(n, iters int, newStat func() func(idx []int) float64) float64 {
	chunk := min(1000, iters)
	chunks := iters / chunk
	res := make([]float64, chunks*chunk)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), chunks); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stat := newStat()
			idx := make([]int, n)
			for c := range next {
				rnd := py.NewRand(int64(c))
				for k := 0; k < chunk; k++ {
					rnd.ChoicesInto(idx)
					res[c*chunk+k] = stat(idx)
				}
			}
		}()
	}
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	wg.Wait()
	return SampleStddev(res)
}
