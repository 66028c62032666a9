package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// TestGenerateCrossesLongRope: greedy generation from prompts that end
// just before a LongRoPE model's switch (Phi-3.5 fixture, original context
// 16) and grow past it equals transformers' generate, which recomputes the
// whole sequence with the long factors when it first crosses the switch
// (greedy_cross.jsonl, parity/archs). Keeping the short-factor cache of the
// prompt instead gives other tokens. Each batch size, so rows that cross at
// different steps share decode passes.
func TestGenerateCrossesLongRope(t *testing.T) {
	checkGreedyCross(t, 1, 3, 8)
}

// checkGreedyCross generates greedily from greedy_cross.jsonl's prompts
// (Phi-3.5 fixture) at each batch size and checks transformers' tokens.
func checkGreedyCross(t *testing.T, batchSizes ...int) {
	t.Helper()
	dir := filepath.Join(testutil.Path(t, "models/testdata/archs"), "phi35")
	want := testutil.ReadJSONL[testutil.Request](t, filepath.Join(dir, "greedy_cross.jsonl"))
	var reqs []lm.GenerateRequest
	for _, w := range want {
		reqs = append(reqs, lm.GenerateRequest{ContextIDs: w.ContextIDs, MaxTokens: 10})
	}
	for _, bs := range batchSizes {
		e, err := Open(dir, Options{BatchSize: bs, Device: os.Getenv("GOEVAL_TEST_DEVICE")})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.GenerateUntil(context.Background(), slices.Clone(reqs))
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if !slices.Equal(g.IDs, want[i].ContinuationIDs) {
				t.Errorf("batch %d, %d-token prompt: generated %v, transformers %v", bs, len(want[i].ContextIDs), g.IDs, want[i].ContinuationIDs)
			}
		}
	}
}
