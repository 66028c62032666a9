package engine

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/synth"
)

// TestGenerateReportsDone: each request's result is reported through
// lm.DoneFunc once, as it stops, and equals the returned one: the
// 2-token request is reported while the 24-token one, decoding beside it,
// still has most of its tokens to go, whichever of the two comes first.
func TestGenerateReportsDone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	err := synth.Model(synth.ModelOptions{Arch: "qwen2", Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 64,
		Vocab: 256, Seed: 3, BOS: 1, EOS: 2, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(dir, Options{BatchSize: 2})
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
