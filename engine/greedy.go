package engine

import (
	"time"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/internal/gocpu"
)

// Greedy decode steps. When every row of a decode step is greedy (lm-eval's
// generate_until default), the step needs each row's argmax, not its
// logits. On goeval's pure-Go backend the decode graph then ends in ArgMax
// (decodeGraph's greedy form), which the backend runs through a screened
// LM head (internal/gocpu/argmax_head.go: an int8 copy of the head read
// instead of the head, the few rows that could win computed exactly) and
// only B ids come back instead of B·V logits. The ids are those argmax
// picks from the logits, bit for bit (the first of equal maxima, the first
// NaN). A step with a sampling row, and XLA devices (where another graph
// is another compile), run the logits graph.

// greedyExecs returns the greedy decode graphs where the backend screens
// heads, else nil.
func (e *Engine) greedyExecs(gs *genState) *graphExecs {
	if gs.greedy == nil && e.backend.String() == gocpu.Name {
		gs.greedy = newGraphExecs(e, "greedy", decodeGraph(e.model, true))
	}
	return gs.greedy
}

// allGreedy reports whether every busy row picks its tokens greedily.
func allGreedy(rows []*genRow) bool {
	for _, r := range rows {
		if r != nil && r.it.samp != nil {
			return false
		}
	}
	return true
}

// runGreedy runs a greedy decode graph of g on cache c and returns each
// row's next token.
func (e *Engine) runGreedy(g *graphExecs, c *kvCache, args []any) ([]int32, time.Duration, error) {
	out, d, err := e.runOnCache(g, "greedy", c, args)
	if err != nil {
		return nil, 0, err
	}
	ids := tensors.MustCopyFlatData[int32](out)
	_ = out.FinalizeAll()
	return ids, d, nil
}
