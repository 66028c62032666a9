package serve

import (
	"math"
	"slices"
)

// logprobsObject is a completions choice's "logprobs": every token (the
// prompt's too with echo, whose first token has no log-prob), its log-prob,
// the argmax token at its position with its log-prob, and text offsets.
//
// lm-eval's local-completions sums token_logprobs[ctxlen:-1] and calls a
// continuation greedy when each of those equals its top_logprobs maximum:
// both come from one scoring pass, so an argmax token's two values are the
// same float64.
func (s *Server) logprobsObject(c *completion, gi int, echo bool) map[string]any {
	g := c.gen[gi]
	ids, first, off := g.IDs, 0, len(c.text)
	if echo {
		ids, first, off = append(slices.Clone(c.prompt), g.IDs...), 1, 0
	}
	var sc = c.scores[gi]
	tokens := make([]string, len(ids))
	lps := make([]any, len(ids))
	tops := make([]any, len(ids))
	offsets := make([]int, len(ids))
	for i, id := range ids {
		tokens[i], offsets[i] = s.tokenText(id), off
		off += len(tokens[i])
		if k := i - first; k >= 0 && sc != nil && k < len(sc.LogProbs) {
			lps[i] = finite(sc.LogProbs[k])
			tops[i] = map[string]any{s.tokenText(sc.TopIDs[k]): finite(sc.TopLogProbs[k])}
		}
	}
	return map[string]any{"tokens": tokens, "token_logprobs": lps, "top_logprobs": tops, "text_offset": offsets}
}

// tokenText is one token's text (special tokens spelled out).
func (s *Server) tokenText(id int32) string { return s.m.Tok.Decode([]int32{id}, false) }

// finite is x, or null when it is NaN or ±Inf (a broken checkpoint's
// log-probs), which JSON cannot carry.
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}
