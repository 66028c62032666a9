package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// int8Gen is one generate_kv.jsonl line: transformers' greedy generate.
type int8Gen struct {
	ContextIDs []int32 `json:"context_ids"`
	Greedy     []int32 `json:"greedy"`
}

// TestInt8ThroughEngine scores parity/bnb/int8_golden.py's 8-bit
// checkpoints through the engine (batches of 4 padded rows; LLM.int8 with
// a threshold turns packing off, and padding adds no outlier column)
// against transformers + bitsandbytes: max |Δ logprob_sum| ≤ 1e-4, and
// greedy generation as transformers' generate with its KV cache gives.
func TestInt8ThroughEngine(t *testing.T) {
	dir := testutil.Path(t, "models/testdata/bnb_int8")
	reqs := testutil.ReadJSONL[testutil.Request](t, filepath.Join(dir, "requests.jsonl"))
	for _, c := range []struct {
		name         string
		batch, chunk int // chunk: the chunked prefill's and scoring's size, 0 the default
	}{{"llama-t0", 4, 0}, {"qwen2-t6", 4, 0}, {"qwen2-t6", 1, 4}} {
		name := c.name
		t.Run(fmt.Sprintf("%s/batch%d/chunk%d", name, c.batch, c.chunk), func(t *testing.T) {
			if c.chunk > 0 { // one row at a time, each longer than a chunk: outliers still over the whole row
				withChunkTokens(t, c.chunk)
			}
			want := testutil.ReadJSONL[archGolden](t, filepath.Join(dir, name, "golden.jsonl"))
			e, err := Open(filepath.Join(dir, name), Options{BatchSize: c.batch, Device: os.Getenv("GOEVAL_TEST_DEVICE")})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			var c, k [][]int32
			for _, r := range reqs {
				c, k = append(c, r.ContextIDs), append(k, r.ContinuationIDs)
			}
			got, err := e.ScoreIDs(context.Background(), c, k, false)
			if err != nil {
				t.Fatal(err)
			}
			d := 0.0
			for i, g := range got {
				d = math.Max(d, math.Abs(g.LogProb-want[i].LogProbSum))
			}
			t.Logf("%s: engine vs transformers max |Δ logprob_sum| = %.3g", name, d)
			if d > 1e-4 {
				t.Errorf("max |Δ| = %g > 1e-4", d)
			}
			gens := testutil.ReadJSONL[int8Gen](t, filepath.Join(dir, name, "generate_kv.jsonl"))
			var gr []lm.GenerateRequest
			for _, g := range gens {
				gr = append(gr, lm.GenerateRequest{ContextIDs: g.ContextIDs, MaxTokens: len(g.Greedy)})
			}
			outs, err := e.GenerateUntil(context.Background(), gr)
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range outs {
				if !slices.Equal(o.IDs, gens[i].Greedy) {
					t.Errorf("greedy after %v: %v, transformers %v", gens[i].ContextIDs, o.IDs, gens[i].Greedy)
				}
			}
		})
	}
}
