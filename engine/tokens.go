package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/goeval/goeval/lm"
)

// ScoreTokens implements lm.TokenScorer: ScoreIDs with per-token results.
func (e *Engine) ScoreTokens(ctx context.Context, reqs []lm.TokenScoreRequest) ([]lm.TokenScores, error) {
	c := make([][]int32, len(reqs))
	k := make([][]int32, len(reqs))
	for i, r := range reqs {
		if len(r.ContextIDs) == 0 {
			return nil, requestError(i, fmt.Errorf("empty context"))
		}
		c[i], k[i] = r.ContextIDs, r.ContinuationIDs
	}
	scores, err := e.ScoreIDs(ctx, c, k, true)
	if err != nil {
		return nil, err
	}
	out := make([]lm.TokenScores, len(scores))
	for i, s := range scores {
		if len(s.TokenLogProbs) != len(k[i]) {
			return nil, requestError(i, fmt.Errorf("scored %d of %d tokens", len(s.TokenLogProbs), len(k[i])))
		}
		out[i] = lm.TokenScores{LogProbs: s.TokenLogProbs, TopIDs: s.TopIDs, TopLogProbs: s.TopLogProbs}
	}
	return out, nil
}

// EOSIDs lists the ids that end generation (config.json,
// generation_config.json, the tokenizer's), sorted.
func (e *Engine) EOSIDs() ([]int32, error) {
	m, err := e.eosIDs()
	if err != nil {
		return nil, err
	}
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}
