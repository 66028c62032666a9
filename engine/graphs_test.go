package engine

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// TestCompileAhead: where shapes cost a compile (simplego here, XLA in
// make parity with GOEVAL_TEST_DEVICE), a scoring call's shapes — its
// passes' and their LM-head chunks' — and a generation call's decode and
// shared-prefix shapes compile before the call runs, several at once
// (one Exec per shape), and nothing compiles while it runs; the results
// are bit-identical to one compile at a time. Run under -race it checks
// that the graphs build concurrently without sharing state.
func TestCompileAhead(t *testing.T) {
	backend := "go"
	if d := os.Getenv("GOEVAL_TEST_DEVICE"); d != "" {
		backend = "" // the device's own backend
	}
	reqs := testutil.Requests(t, "tiny-llama")[:12]
	ll := make([]lm.LoglikelihoodRequest, len(reqs))
	for i, r := range reqs {
		ll[i] = lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
	}
	long := lm.LoglikelihoodRequest{ContextIDs: make([]int32, 100), ContinuationIDs: []int32{5, 6, 7, 8, 9, 10, 11, 12, 13, 14}}
	ll = append(ll, long)
	var want []lm.LoglikelihoodResult
	var wantGen []lm.GenerateResult
	for _, workers := range []string{"1", "4"} {
		t.Setenv("GOEVAL_COMPILE_WORKERS", workers)
		var log strings.Builder
		o := Options{BatchSize: 3, Backend: backend, Device: os.Getenv("GOEVAL_TEST_DEVICE"),
			Logf: func(format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) }}
		e := openFixture(t, "tiny-llama", o)
		if e.cheapShapes() {
			t.Fatalf("backend %s: shapes are cheap; the test needs a compiling backend", e.backend.String())
		}
		got, err := e.Loglikelihood(context.Background(), ll)
		if err != nil {
			t.Fatal(err)
		}
		s := e.Stats()
		if s.Compiles < 3 || strings.Count(log.String(), "(ahead") != s.Compiles {
			t.Errorf("workers %s: %d graphs compiled (want ≥ 3: two pass shapes and the head), not all ahead:\n%s", workers, s.Compiles, log.String())
		}
		gen, err := e.GenerateUntil(context.Background(), prefixPrompts(5, 7, e.Config().VocabSize))
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"decode ", "prefill (Int32)[1 "} { // the decode graph, the shared prefix's prefill
			if !regexp.MustCompile(`compiled ` + regexp.QuoteMeta(kind) + `.*\(ahead`).MatchString(log.String()) {
				t.Errorf("workers %s: no %s graph compiled ahead:\n%s", workers, kind, log.String())
			}
		}
		if want == nil {
			want, wantGen = got, gen
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("request %d: %+v with %s workers, %+v with 1", i, got[i], workers, want[i])
			}
		}
		for i := range wantGen {
			if !slices.Equal(gen[i].IDs, wantGen[i].IDs) {
				t.Errorf("generation %d: %v with %s workers, %v with 1", i, gen[i].IDs, workers, wantGen[i].IDs)
			}
		}
	}
}
