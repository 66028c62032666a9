package engine

import (
	"context"
	"math"
	"testing"

	"github.com/goeval/goeval/lm"
)

// TestHeadRows pins the LM-head chunk: within [minHeadRows, maxHeadRows],
// f32 logits within headLogitsBudget when the minimum allows it.
func TestHeadRows(t *testing.T) {
	for _, c := range []struct{ v, want int }{
		{512, 128}, {32000, 128}, {128256, 64}, {151936, 32}, {256000, 32},
	} {
		got := headRows(c.v)
		if got != c.want {
			t.Errorf("headRows(%d) = %d, want %d", c.v, got, c.want)
		}
		if got > minHeadRows && got*c.v*4 > headLogitsBudget {
			t.Errorf("headRows(%d) = %d: [%d, %d] f32 logits exceed %d bytes", c.v, got, got, c.v, headLogitsBudget)
		}
	}
}

// TestHeadChunkedExact: rolling windows (7 of 64 tokens) run through
// the LM head in chunks of 4 rows give the bits of chunks of 128 (one call
// per pass): each slot's log-prob and greedy flag do not depend on the
// chunk. Stats show the chunking happened.
func TestHeadChunkedExact(t *testing.T) {
	ids := make([]int32, 400)
	for i := range ids {
		ids[i] = int32(100 + (i*7919)%20000)
	}
	ll := []lm.LoglikelihoodRequest{{ContextIDs: ids[:20], ContinuationIDs: ids[20:60]}, {ContextIDs: ids[:3], ContinuationIDs: ids[3:5]}}
	run := func(lo, hi int) (*Engine, []lm.RollingResult, []lm.LoglikelihoodResult) {
		savedLo, savedHi := minHeadRows, maxHeadRows
		minHeadRows, maxHeadRows = lo, hi
		defer func() { minHeadRows, maxHeadRows = savedLo, savedHi }()
		e := openFixture(t, "tiny-llama", Options{BatchSize: 8, MaxLength: 64})
		roll, err := e.LoglikelihoodRolling(context.Background(), []lm.RollingRequest{{IDs: ids}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Loglikelihood(context.Background(), ll)
		if err != nil {
			t.Fatal(err)
		}
		return e, roll, got
	}
	_, wantRoll, wantLL := run(128, 128)
	e, roll, got := run(4, 4)
	if math.Float64bits(roll[0].LogProb) != math.Float64bits(wantRoll[0].LogProb) || roll[0].NumTokens != len(ids) {
		t.Errorf("rolling in head chunks of 4: %+v, in one chunk %+v", roll[0], wantRoll[0])
	}
	for i := range ll {
		if got[i] != wantLL[i] {
			t.Errorf("request %d in head chunks of 4: %+v, in one chunk %+v", i, got[i], wantLL[i])
		}
	}
	if s := e.Stats(); s.HeadRows != 4 || s.HeadCalls < len(ids)/4 {
		t.Errorf("head ran %d calls of at most %d rows; want ≥ %d calls of 4", s.HeadCalls, s.HeadRows, len(ids)/4)
	}
}
