package engine

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/synth"
)

// TestGenerateReportsDone: each request's result is reported through
// lm.DoneFunc once, as it stops, and equals the returned one: the
// 2-token request is reported while the 24-token one, decoding beside it,
// still has most of its tokens to go, whichever of the two comes first.
func TestGenerateReportsDone(t *testing.T) {
	e, err := Open(doneModel(t), Options{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ids := randomIDs(rand.New(rand.NewPCG(6, 1)), 256)
	for _, order := range [][2]int{{2, 24}, {24, 2}} {
		reqs := []lm.GenerateRequest{{ContextIDs: ids(9), MaxTokens: order[0]}, {ContextIDs: ids(5), MaxTokens: order[1]}}
		short := 0
		if order[1] == 2 {
			short = 1
		}
		tokens := make([]int, 2)
		done := map[int][]lm.GenerateResult{}
		longAtShort := -1
		ctx := lm.WithTokenFunc(context.Background(), func(i int, _ int32) { tokens[i]++ })
		ctx = lm.WithDoneFunc(ctx, func(i int, res lm.GenerateResult) {
			done[i] = append(done[i], res)
			if i == short {
				longAtShort = tokens[1-short]
			}
		})
		got, err := e.GenerateUntil(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range reqs {
			if len(done[i]) != 1 || !reflect.DeepEqual(done[i][0], got[i]) {
				t.Errorf("order %v: request %d reported %d times, want once with the returned result", order, i, len(done[i]))
			}
		}
		if long := len(got[1-short].IDs); long < 12 || longAtShort < 0 || longAtShort > 4 {
			t.Errorf("order %v: the short request was reported with the long one at %d of its %d tokens; want it reported early (≤ 4)",
				order, longAtShort, long)
		}
	}
}

// TestGenerateFeed: requests fed into a running call (lm.WithFeed) as its
// rows free up are generated as they are alone — token for token, a
// seeded sampled one too — reported through lm.TokenFunc and lm.DoneFunc
// under the indices after the call's own, in feed order; the call returns
// its own results, and a request that does not fit its cache is never
// taken (fits refuses it).
func TestGenerateFeed(t *testing.T) {
	e, err := Open(doneModel(t), Options{BatchSize: 3, MaxLength: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ids := randomIDs(rand.New(rand.NewPCG(8, 2)), 256)
	own := []lm.GenerateRequest{{ContextIDs: ids(7), MaxTokens: 3}, {ContextIDs: ids(11), MaxTokens: 12}}
	fed := []lm.GenerateRequest{{ContextIDs: ids(5), MaxTokens: 4}, {ContextIDs: ids(20), MaxTokens: 9},
		{ContextIDs: ids(3), MaxTokens: 6, Temperature: 0.9, Seed: 4}, {ContextIDs: ids(9), MaxTokens: 2}}
	tooLong := lm.GenerateRequest{ContextIDs: ids(8), MaxTokens: 400} // needs more slots than the call's cache
	var want []lm.GenerateResult
	for _, q := range append(slices.Clone(own), fed...) {
		res, err := e.GenerateUntil(context.Background(), []lm.GenerateRequest{q})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, res[0])
	}
	queue := append([]lm.GenerateRequest{tooLong}, fed...)
	tokens, done := map[int][]int32{}, map[int][]lm.GenerateResult{}
	ctx := lm.WithTokenFunc(context.Background(), func(i int, id int32) { tokens[i] = append(tokens[i], id) })
	ctx = lm.WithDoneFunc(ctx, func(i int, res lm.GenerateResult) { done[i] = append(done[i], res) })
	ctx = lm.WithFeed(ctx, func(rows int, fits func(lm.GenerateRequest) bool) []lm.GenerateRequest {
		var out []lm.GenerateRequest
		for len(out) < min(rows, 1) { // one at a time: rows free up while others decode
			k := slices.IndexFunc(queue, fits)
			if k < 0 {
				break
			}
			out, queue = append(out, queue[k]), slices.Delete(queue, k, k+1)
		}
		return out
	})
	got, err := e.GenerateUntil(ctx, own)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(own) || len(queue) != 1 || !reflect.DeepEqual(queue[0], tooLong) {
		t.Fatalf("%d results for %d own requests; left in the queue %d (want the one that does not fit)", len(got), len(own), len(queue))
	}
	for i, w := range want {
		if i < len(own) && !reflect.DeepEqual(got[i], w) {
			t.Errorf("own request %d: %+v, alone %+v", i, got[i], w)
		}
		if len(done[i]) != 1 || !reflect.DeepEqual(done[i][0], w) || !slices.Equal(tokens[i], w.IDs) {
			t.Errorf("request %d: reported %d times (%+v), tokens %v; alone %+v", i, len(done[i]), done[i], tokens[i], w)
		}
	}
	if _, ok := done[len(want)]; ok {
		t.Errorf("a request past the fed ones was reported")
	}
}

// doneModel writes these tests' model: a tiny random qwen2 with a
// 256-token vocabulary (EOS 2).
func doneModel(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	err := synth.Model(synth.ModelOptions{Arch: "qwen2", Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 64,
		Vocab: 256, Seed: 3, BOS: 1, EOS: 2, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
