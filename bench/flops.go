package bench

import (
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
)

// ScoreFLOPs is the useful f32 arithmetic of scoring reqs with a model of
// cfg, each request in its own unpadded row of len(context)+len(continuation)−1
// tokens: 2 FLOPs per weight per token through the decoder layers' linear
// maps (q, k, v, o and the 3 MLP matrices), causal attention (QKᵀ and
// attention·V: 4·heads·head_dim per query-key pair, pairs T(T+1)/2), and
// the LM head at the scored positions only (2·hidden·vocab each). Padding,
// norms, RoPE and the softmax are not counted, so it is a lower bound of
// what a backend executes; FLOPs ÷ time is the "model FLOP/s" that
// utilization figures use.
func ScoreFLOPs(cfg *models.Config, reqs []lm.LoglikelihoodRequest) float64 {
	h, inter := float64(cfg.HiddenSize), float64(cfg.IntermediateSize)
	q := float64(cfg.NumAttentionHeads * cfg.HeadDim)
	kv := float64(cfg.NumKeyValueHeads * cfg.HeadDim)
	perToken := 2 * (h*q + 2*h*kv + q*h + 3*h*inter) // one layer's linear maps
	layers := float64(cfg.NumHiddenLayers)
	total := 0.0
	for _, r := range reqs {
		t := float64(len(r.ContextIDs) + len(r.ContinuationIDs) - 1)
		total += layers * (perToken*t + 4*q*t*(t+1)/2)
		total += 2 * h * float64(cfg.VocabSize) * float64(len(r.ContinuationIDs))
	}
	return total
}
