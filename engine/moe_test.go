package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// TestMoEBatchInvariance: a mixture-of-experts model's answer to a request
// is bit-identical whether it is scored alone (its few tokens take
// nn.MoE's direct layout, every expert on every token) or in a batch, in
// reverse order or next to a long neighbour, packed or not (many tokens:
// the grouped layout, tiles sorted by expert, where its tokens share tiles
// with other requests' tokens at other offsets).
func TestMoEBatchInvariance(t *testing.T) {
	dir := testutil.Path(t, "models/testdata/archs")
	reqs := testutil.ReadJSONL[testutil.Request](t, filepath.Join(dir, "requests.jsonl"))
	ll := make([]lm.LoglikelihoodRequest, len(reqs))
	for i, r := range reqs {
		ll[i] = lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
	}
	long := lm.LoglikelihoodRequest{ContextIDs: make([]int32, 90), ContinuationIDs: []int32{5, 6, 7, 8, 9, 10}}
	ctx := context.Background()
	for _, name := range []string{"mixtral", "qwen2moe", "qwen3moe", "olmoe"} {
		t.Run(name, func(t *testing.T) {
			open := func(bs int, packing string) *Engine {
				e, err := Open(filepath.Join(dir, name), Options{BatchSize: bs, Packing: packing})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
				return e
			}
			alone := open(1, "off")
			want := make([]lm.LoglikelihoodResult, len(ll))
			for i := range ll {
				r, err := alone.Loglikelihood(ctx, ll[i:i+1])
				if err != nil {
					t.Fatal(err)
				}
				want[i] = r[0]
			}
			for _, packing := range []string{"off", "on"} {
				e := open(8, packing)
				for what, batch := range map[string][]lm.LoglikelihoodRequest{"reversed": reversed(ll), "withLong": append(append([]lm.LoglikelihoodRequest{long}, ll...), long)} {
					got, err := e.Loglikelihood(ctx, batch)
					if err != nil {
						t.Fatal(err)
					}
					for i := range ll {
						j := len(ll) - 1 - i
						if what == "withLong" {
							j = i + 1
						}
						if got[j] != want[i] {
							t.Errorf("packing %s, %s: request %d = %+v, alone %+v", packing, what, i, got[j], want[i])
						}
					}
				}
			}
		})
	}
}
