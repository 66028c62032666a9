package engine

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/lm"
)

// TestScoreTokens: per-token log-probs sum to the request's log-likelihood
// (bit for bit: same graph, same order), the top log-prob bounds each one
// and equals it exactly where the token is the argmax, and is_greedy is
// "every token is the argmax".
func TestScoreTokens(t *testing.T) {
	e, err := Open(fixturemodel.Model(t, fixturemodel.Base), Options{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	reqs := []lm.TokenScoreRequest{
		{ContextIDs: []int32{5, 9, 13}, ContinuationIDs: []int32{21, 8, 8, 40}},
		{ContextIDs: []int32{7}, ContinuationIDs: []int32{3}},
		{ContextIDs: []int32{11, 12}, ContinuationIDs: []int32{13, 14, 15, 16, 17, 18}},
	}
	got, err := e.ScoreTokens(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	var c, k [][]int32
	for _, r := range reqs {
		c, k = append(c, r.ContextIDs), append(k, r.ContinuationIDs)
	}
	whole, err := e.ScoreIDs(context.Background(), c, k, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		sum, greedy := 0.0, true
		for j, lp := range g.LogProbs {
			sum += lp
			top := g.TopLogProbs[j]
			if lp > top || (g.TopIDs[j] == k[i][j]) != (lp == top) {
				t.Errorf("request %d token %d: log-prob %v, top %v (id %d, token %d)", i, j, lp, top, g.TopIDs[j], k[i][j])
			}
			greedy = greedy && g.TopIDs[j] == k[i][j]
		}
		if sum != whole[i].LogProb || greedy != whole[i].IsGreedy || math.IsNaN(sum) {
			t.Errorf("request %d: Σ token log-probs %v greedy %v, ScoreIDs %v %v", i, sum, greedy, whole[i].LogProb, whole[i].IsGreedy)
		}
	}
	if _, err := e.ScoreTokens(context.Background(), []lm.TokenScoreRequest{{ContinuationIDs: []int32{1}}}); err == nil {
		t.Error("empty context accepted")
	}
}

// TestTokenFunc: lm.WithTokenFunc sees every generated token of every
// request, in order, and they are the results' ids.
func TestTokenFunc(t *testing.T) {
	e, err := Open(fixturemodel.Model(t, fixturemodel.Base), Options{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	reqs := []lm.GenerateRequest{
		{ContextIDs: []int32{5, 9, 13}, MaxTokens: 5},
		{ContextIDs: []int32{7, 8}, MaxTokens: 3},
		{ContextIDs: []int32{11, 12, 1, 2}, MaxTokens: 6, Temperature: 0.8, Seed: 3},
	}
	var mu sync.Mutex
	seen := make([][]int32, len(reqs))
	ctx := lm.WithTokenFunc(context.Background(), func(r int, id int32) {
		mu.Lock()
		seen[r] = append(seen[r], id)
		mu.Unlock()
	})
	res, err := e.GenerateUntil(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !slices.Equal(seen[i], r.IDs) {
			t.Errorf("request %d: streamed %v, result %v", i, seen[i], r.IDs)
		}
	}
}
