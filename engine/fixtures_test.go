package engine

import (
	"context"
	"math"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/lm"
)

// TestFixturesMatchLlamaCpp: every reference log-prob sum to 1e-4 and the
// same greedy flags, on the pure-Go backend in f32, for every fixture model
// of testdata/fixtures (weights synthesized by fixturemodel, references from
// llama.cpp by parity/fixtures/make_refs.sh).
func TestFixturesMatchLlamaCpp(t *testing.T) {
	for _, name := range fixturemodel.Names() {
		t.Run(name, func(t *testing.T) {
			reqs := testutil.Requests(t, name)
			refs := testutil.References(t, name, len(reqs))
			e, err := Open(fixturemodel.Model(t, name), Options{Device: "cpu", BatchSize: 8})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ll := make([]lm.LoglikelihoodRequest, len(reqs))
			for i, r := range reqs {
				ll[i] = lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
			}
			got, err := e.Loglikelihood(context.Background(), ll)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, g := range got {
				d := math.Abs(g.LogProb - refs[i].LogProbSum)
				worst = max(worst, d)
				if d > 1e-4 || g.IsGreedy != refs[i].IsGreedy || g.NumTokens != len(reqs[i].ContinuationIDs) {
					t.Errorf("request %d: got (%.6f, greedy %v, n %d), llama.cpp (%.6f, greedy %v, n %d)",
						i, g.LogProb, g.IsGreedy, g.NumTokens, refs[i].LogProbSum, refs[i].IsGreedy, len(reqs[i].ContinuationIDs))
				}
			}
			t.Logf("%d requests, max |Δ logprob| = %.2e, %+v", len(got), worst, e.Stats())
		})
	}
}
