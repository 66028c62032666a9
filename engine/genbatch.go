package engine

import (
	"time"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/engine/plan"
)

// Generation batch size, auto (Options.BatchSize 0): a decode step reads
// every weight once whatever the batch, so small batches are bound by
// memory bandwidth and larger ones by arithmetic; where that turns depends
// on the device and the model. On a CPU device the first GenerateUntil
// with more requests than the scoring batch times one decode step at
// 8, 16, 32 and 64 cache rows (at most the requests, within
// genCacheBudget of KV cache) and keeps the smallest batch within 3 % of
// the best tokens per second (a batch half as wide runs the requests in
// twice the rounds, so only a near-tie favours it); the choice is kept per
// cache length. The timing steps run on zeroed caches and count as
// compiles, not as decode steps, in GenStats. goeval's pure-Go backend is
// measured too (its decode reads each weight once per step: 38.7 / 55.1 /
// 56.2 tok/s at 8 / 16 / 32 rows of 512 slots at the 0.5B shape), but
// only beyond genUntimedRows requests; simplego
// keeps the scoring batch, a step there costs seconds. On CUDA nothing is timed: each
// candidate would be a compile of 5–12 s at the 0.5B shape, and a GPU step
// barely grows with the rows (an H100 at the 0.5B shape: 5.4 ms at 1 row,
// 7.9 ms at 32, 13.2 ms at 128), so the largest candidate that fits is
// taken.

// genTimingRounds is how many times each candidate is timed (its best
// counts): once was not enough on XLA, where the first timing of a 16-row
// step at 768 slots gave 673 ms and the second 455 ms (8 rows: 340 ms), so
// 16 rows looked no faster than 8 and two gsm8k runs out of three decoded
// 8 rows in twice the steps.
const genTimingRounds = 2

// genUntimedRows: on goeval's pure-Go backend requests that fit this many
// rows all decode together, untimed. A step of 16 rows there never costs
// twice one of 8 (the weights are read once per step; the rest grows with
// the rows), so 8 rows could only tie, in twice the steps; timing both
// cost a 16-document gsm8k run 4 s of its 112.
const genUntimedRows = 16

// genBatchCandidates are the decode batches tried.
var genBatchCandidates = []int{8, 16, 32, 64}

// genCacheBudget bounds the KV cache a measured batch may take.
const genCacheBudget = 2 << 30

// genBatch is the decode batch for n requests with caches of s slots.
func (e *Engine) genBatch(gs *genState, n, s int) (int, error) {
	b := plan.BucketB(n, e.batch)
	if e.opts.BatchSize != 0 || e.backend.String() == "go" || n <= e.batch {
		return b, nil
	}
	if got, ok := gs.autoBatch[s]; ok {
		return min(got, plan.BucketPow2(n)), nil
	}
	rowBytes := s * e.slotBytes()
	if e.device.Device == "cuda" {
		return largestFitting(n, rowBytes, b), nil
	}
	if e.cheapShapes() && plan.BucketPow2(n) <= genUntimedRows {
		return largestFitting(n, rowBytes, b), nil
	}
	best, bestRate := b, 0.0
	rates := map[int]float64{}
	for range genTimingRounds { // interleaved, so a slow spell hits every candidate
		for _, c := range genBatchCandidates {
			if c > plan.BucketPow2(n) || c*rowBytes > genCacheBudget {
				break
			}
			step, err := e.timeDecode(gs, c, s)
			if err != nil {
				return 0, err
			}
			rates[c] = max(rates[c], float64(c)/step.Seconds())
			if rates[c] > bestRate {
				best, bestRate = c, rates[c]
			}
		}
	}
	for _, c := range genBatchCandidates { // the smallest within 3 % of the best
		if r, ok := rates[c]; ok && r >= 0.97*bestRate {
			best = c
			break
		}
	}
	if gs.autoBatch == nil {
		gs.autoBatch = map[int]int{}
	}
	gs.autoBatch[s] = best
	e.opts.logf("generation batch auto: %d rows (decode tokens/s by rows: %v)", best, rates)
	return best, nil
}

// slotBytes is the KV cache bytes of one row per slot (counted in float32
// whatever the dtype: the budget then holds in every one).
func (e *Engine) slotBytes() int {
	layers, kv, d := e.model.CacheDims()
	return 2 * layers * kv * d * 4
}

// largestFitting is the largest candidate batch for n requests whose KV
// cache fits genCacheBudget, or b when none does.
func largestFitting(n, rowBytes, b int) int {
	best := b
	for _, c := range genBatchCandidates {
		if c > plan.BucketPow2(n) || c*rowBytes > genCacheBudget {
			break
		}
		best = c
	}
	return best
}

// timeDecode is the fastest of three decode steps of c rows with s cache
// slots (after a first step that compiles the shape).
func (e *Engine) timeDecode(gs *genState, c, s int) (time.Duration, error) {
	cache, err := e.newCache(c, s)
	if err != nil {
		return 0, err
	}
	defer cache.close()
	tok, pos := make([]int32, c), make([]int32, c)
	best := time.Duration(0)
	for i := range 4 {
		args := []any{tensors.FromFlatDataAndDimensions(tok, c), tensors.FromFlatDataAndDimensions(pos, c)}
		start := time.Now()
		if _, _, err := e.runGen(gs.decode, "decode", cache, args); err != nil {
			return 0, err
		}
		if d := time.Since(start); i > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return best, nil
}
