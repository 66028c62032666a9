package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// failPasses sets oomHook for the test: pass kind kind with more than rows
// rows fails with an out-of-memory error when fail says so (n counts such
// passes from 1); it returns the count of failures injected.
func failPasses(t *testing.T, kind string, rows int, fail func(n int) bool) *int {
	t.Helper()
	n, failed := 0, new(int)
	oomHook = func(k string, r, _ int) error {
		if k != kind || r <= rows {
			return nil
		}
		n++
		if !fail(n) {
			return nil
		}
		*failed++
		return oomError(int64(r) << 30)
	}
	t.Cleanup(func() { oomHook = nil })
	return failed
}

// llRequests are the fixture's log-likelihood requests, twice.
func llRequests(t *testing.T, name string) []lm.LoglikelihoodRequest {
	var out []lm.LoglikelihoodRequest
	for _, r := range testutil.Requests(t, name) {
		out = append(out, lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs})
	}
	return append(out, out[:7]...)
}

// TestScoreOOMBackOff: with the batch auto, scoring passes that run out of
// device memory are planned again with half the rows, the results are
// those of a run without failures, and the halvings and the batch in the
// end are in the stats; with a batch given, or one row that does not fit,
// the call fails with the device's error.
func TestScoreOOMBackOff(t *testing.T) {
	reqs := llRequests(t, "tiny-llama")
	ctx := context.Background()
	for _, packing := range []string{"off", "on"} {
		t.Run("packing="+packing, func(t *testing.T) {
			want, err := openFixture(t, "tiny-llama", Options{Packing: packing}).Loglikelihood(ctx, reqs)
			if err != nil {
				t.Fatal(err)
			}
			e := openFixture(t, "tiny-llama", Options{Packing: packing})
			fail := func(n int) bool { return n == 2 || n == 5 } // two passes of 2+ rows, each after one that ran
			if packing == "on" {
				fail = func(n int) bool { return n == 1 } // the packed rows take fewer passes
			}
			failed := failPasses(t, "scoring", 1, fail)
			got, err := e.Loglikelihood(ctx, reqs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after %d back-offs the scores differ from a run without failures", *failed)
			}
			s := e.Stats()
			if *failed == 0 || s.Backoffs != *failed {
				t.Errorf("%d failures injected, Stats.Backoffs %d", *failed, s.Backoffs)
			}
			if packing == "off" && (*failed != 2 || s.Batch != 2) { // 5 passes of 8 rows, the last 4 again as 8 of 4, the last 6 as 12 of 2
				t.Errorf("batch %d after %d back-offs, want 2 after 2", s.Batch, *failed)
			}
			if w := e.Work(); w.Backoffs != s.Backoffs || w.Since(w).Backoffs != 0 {
				t.Errorf("Work: %d back-offs, %d since itself", w.Backoffs, w.Since(w).Backoffs)
			}
		})
	}
	t.Run("batch given", func(t *testing.T) {
		e := openFixture(t, "tiny-llama", Options{BatchSize: 8, Packing: "off"})
		failPasses(t, "scoring", 1, func(int) bool { return true })
		if _, err := e.Loglikelihood(ctx, reqs); !isOOM(err) || e.Stats().Backoffs != 0 {
			t.Errorf("batch 8: err %v, %d back-offs; want the out-of-memory error, none", err, e.Stats().Backoffs)
		}
	})
	t.Run("one row does not fit", func(t *testing.T) {
		e := openFixture(t, "tiny-llama", Options{Packing: "off"})
		failPasses(t, "scoring", 0, func(int) bool { return true })
		if _, err := e.Loglikelihood(ctx, reqs); !isOOM(err) || e.Stats().Batch != 1 || e.Stats().Backoffs != 3 {
			t.Errorf("err %v, batch %d after %d back-offs; want the out-of-memory error at 1 row after 3", err, e.Stats().Batch, e.Stats().Backoffs)
		}
	})
}

// TestGenerateOOMBackOff: with the batch auto, a decode step that runs out
// of device memory restarts the unfinished requests (greedy and sampled)
// in a cache of half the rows; the results are those of a run without
// failures, each token is reported once, and the stats say 2 halvings and
// 4 rows. With a batch given the call fails with the device's error.
func TestGenerateOOMBackOff(t *testing.T) {
	gens, _ := testutil.Generates(t, "tiny-llama")
	var reqs []lm.GenerateRequest
	for i := range 12 {
		g := gens[i%len(gens)]
		r := lm.GenerateRequest{ContextIDs: g.ContextIDs, MaxTokens: 2 + i%9}
		if i%3 == 0 {
			r.Temperature, r.TopK, r.Seed = 0.9, 20, uint64(i)
		}
		reqs = append(reqs, r)
	}
	run := func(e *Engine) ([]lm.GenerateResult, [][]int32, error) {
		streamed := make([][]int32, len(reqs))
		ctx := lm.WithTokenFunc(context.Background(), func(req int, id int32) { streamed[req] = append(streamed[req], id) })
		got, err := e.GenerateUntil(ctx, reqs)
		return got, streamed, err
	}
	want, _, err := run(openFixture(t, "tiny-llama", Options{}))
	if err != nil {
		t.Fatal(err)
	}
	e := openFixture(t, "tiny-llama", Options{})
	failed := failPasses(t, "decode", 4, func(n int) bool { return n >= 3 }) // from the third step of 5+ rows on
	got, streamed, err := run(e)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("request %d: %+v, without failures %+v", i, got[i], want[i])
		}
		if !slices.Equal(streamed[i], got[i].IDs) {
			t.Errorf("request %d: streamed %v, generated %v", i, streamed[i], got[i].IDs)
		}
	}
	if s, g := e.Stats(), e.GenStats(); *failed != 2 || s.Backoffs != 2 || g.Rows != 4 {
		t.Errorf("%d failures, %d back-offs, %d rows; want 16 rows halved twice to 4", *failed, s.Backoffs, g.Rows)
	}
	e8 := openFixture(t, "tiny-llama", Options{BatchSize: 8})
	failPasses(t, "decode", 0, func(int) bool { return true })
	if _, _, err := run(e8); !isOOM(err) {
		t.Errorf("batch 8: %v, want the out-of-memory error", err)
	}
}

// TestIsOOM: PJRT's and CUDA's out-of-memory messages, wrapped, are
// recognised; other errors are not.
func TestIsOOM(t *testing.T) {
	for _, msg := range []string{
		"PJRT error (code=8): Out of memory while trying to allocate 2147483648 bytes.",
		"RESOURCE_EXHAUSTED: Failed to allocate request for 1.00GiB (1073741824B) on device ordinal 0",
		"CUDA_ERROR_OUT_OF_MEMORY: out of memory",
	} {
		if err := fmt.Errorf("score batch: run scoring B=8: %w", errors.New(msg)); !isOOM(err) {
			t.Errorf("%q: not recognised", msg)
		}
	}
	for _, err := range []error{nil, errors.New("PJRT error (code=3): INVALID_ARGUMENT: shape mismatch"), context.Canceled} {
		if isOOM(err) {
			t.Errorf("%v: taken for out of memory", err)
		}
	}
}
