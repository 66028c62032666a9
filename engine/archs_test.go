package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// archGolden is one line of models/testdata/archs/<name>/golden.jsonl.
type archGolden struct {
	LogProbSum float64 `json:"logprob_sum"`
	IsGreedy   bool    `json:"is_greedy"`
	GreedyIDs  []int32 `json:"greedy_ids"`
}

// TestArchsThroughEngine runs the Phi, Phi-3, Phi-3.5 (LongRoPE), Gemma 2, Gemma 3 and
// mixture-of-experts (Mixtral, Qwen2-MoE, Qwen3-MoE, OLMoE) goldens
// (transformers, CPU f32) through the batched engine: log-prob sums within
// 1e-4 and the same greedy flags; greedy generation's first token equals
// transformers' argmax, its 4 tokens transformers' greedy ones
// (requests_greedy.jsonl), and re-scoring a 4-token generation reports it
// as greedy (KV-cache decode ≡ full forward). GOEVAL_TEST_DEVICE (xla-cpu,
// cuda) runs it on that device.
func TestArchsThroughEngine(t *testing.T) {
	dir := testutil.Path(t, "models/testdata/archs")
	reqs := testutil.ReadJSONL[testutil.Request](t, filepath.Join(dir, "requests.jsonl"))
	for _, name := range []string{"phi", "phi3", "phi35", "gemma2", "gemma3", "gemma3mm", "mixtral", "qwen2moe", "qwen3moe", "olmoe"} {
		t.Run(name, func(t *testing.T) {
			want := testutil.ReadJSONL[archGolden](t, filepath.Join(dir, name, "golden.jsonl"))
			greedy := testutil.ReadJSONL[testutil.Request](t, filepath.Join(dir, name, "requests_greedy.jsonl"))
			e, err := Open(filepath.Join(dir, name), Options{BatchSize: 4, Device: os.Getenv("GOEVAL_TEST_DEVICE")})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			var c, k [][]int32
			var gen []lm.GenerateRequest
			for _, r := range reqs {
				c, k = append(c, r.ContextIDs), append(k, r.ContinuationIDs)
				gen = append(gen, lm.GenerateRequest{ContextIDs: r.ContextIDs, MaxTokens: 4})
			}
			got, err := e.ScoreIDs(context.Background(), c, k, false)
			if err != nil {
				t.Fatal(err)
			}
			d := 0.0
			for i, g := range got {
				d = math.Max(d, math.Abs(g.LogProb-want[i].LogProbSum))
				if g.IsGreedy != want[i].IsGreedy {
					t.Errorf("request %d: is_greedy %v, transformers %v", i, g.IsGreedy, want[i].IsGreedy)
				}
			}
			t.Logf("%s: engine vs transformers max |Δ logprob_sum| = %.3g", name, d)
			if d > 1e-4 {
				t.Errorf("max |Δ| = %g > 1e-4", d)
			}
			outs, err := e.GenerateUntil(context.Background(), gen)
			if err != nil {
				t.Fatal(err)
			}
			var gc, gk [][]int32
			for i, o := range outs {
				if len(o.IDs) == 0 || o.IDs[0] != want[i].GreedyIDs[0] {
					t.Errorf("request %d: first generated token %v, transformers argmax %d", i, o.IDs, want[i].GreedyIDs[0])
					continue
				}
				g := greedy[i] // generation stops after eos (2), transformers' greedy tokens do not
				stopped := len(o.IDs) < len(g.ContinuationIDs) && o.IDs[len(o.IDs)-1] == 2
				if !slices.Equal(g.ContextIDs, reqs[i].ContextIDs) || !slices.Equal(o.IDs, g.ContinuationIDs[:min(len(o.IDs), 4)]) ||
					(len(o.IDs) != len(g.ContinuationIDs) && !stopped) {
					t.Errorf("request %d: generated %v, transformers' greedy %v", i, o.IDs, g.ContinuationIDs)
				}
				gc, gk = append(gc, reqs[i].ContextIDs), append(gk, o.IDs)
			}
			rescored, err := e.ScoreIDs(context.Background(), gc, gk, false)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range rescored {
				if !s.IsGreedy {
					t.Errorf("generation %d (%v) is not greedy under full scoring", i, gk[i])
				}
			}
		})
	}
}
