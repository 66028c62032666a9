package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/goeval/goeval/lm"
)

// Fed requests (lm.WithFeed): once a generation call has admitted all its
// own requests, each row that frees up may take a request from the call's
// feed — a server's next client — instead of idling until the call ends.
// A fed request must fit the running cache (its prompt and tokens within
// its slots, its prompt within one prefill chunk): a call with a feed
// sizes its cache for twice its longest request (within max_length), so
// that most of a server's next requests fit. Its rows stay those of its
// own requests: free rows decode dummy tokens, so spare rows would slow
// every step (at 8 clients, 16 rows for 8 busy ones cost the long requests
// a third of their speed), and a server whose clients outnumber a call's
// rows starts its next call with all of them (the first job a call cannot
// take is set aside and leads the next). Its prompt is prefilled
// whole, several together within the prefill budget, and it then decodes
// beside the others. Its result goes to lm.DoneFunc alone. Only on goeval's
// pure-Go backend, where a new prefill shape costs no compile and no pass
// backs off (a pass that must back off after taking fed requests fails
// instead: they are not run again).

// feedOf is ctx's feed where this engine takes fed requests, else nil.
func (e *Engine) feedOf(ctx context.Context) lm.FeedFunc {
	if !e.cheapShapes() {
		return nil
	}
	return lm.Feed(ctx)
}

// feedRows asks the call's feed for requests for the free rows of cache c,
// puts them in those rows and prefills them.
func (e *Engine) feedRows(gs *genState, c *kvCache, rows []*genRow) error {
	eos, err := e.eosIDs()
	if err != nil {
		return err
	}
	item := func(q lm.GenerateRequest) (genItem, bool) {
		it, err := e.makeGenItem(q, eos)
		return it, err == nil && len(it.ctx)+it.stop.maxGen <= c.S && len(it.ctx) <= e.chunkTokens()
	}
	free := 0
	for _, r := range rows {
		if r == nil {
			free++
		}
	}
	reqs := gs.feed(free, func(q lm.GenerateRequest) bool { _, ok := item(q); return ok })
	if len(reqs) > free {
		return fmt.Errorf("generation feed returned %d requests for %d free rows", len(reqs), free)
	}
	items := make([]genItem, len(reqs))
	out := make([]lm.GenerateResult, len(reqs))
	var admitted []int
	for k, q := range reqs {
		var ok bool
		if items[k], ok = item(q); !ok {
			return fmt.Errorf("generation feed returned request %d, which does not fit the running call", gs.fedNext)
		}
		r := slices.Index(rows, nil)
		rows[r] = &genRow{req: -1, call: gs.fedNext, it: &items[k], out: &out[k]}
		gs.fedNext++
		gs.fedBusy = true
		gs.stats.PromptTokens += len(items[k].ctx)
		admitted = append(admitted, r)
	}
	slices.SortStableFunc(admitted, func(a, b int) int { return len(rows[b].it.ctx) - len(rows[a].it.ctx) })
	for len(admitted) > 0 { // as many a prefill as the budget holds, the longest first
		n := max(1, e.prefillBudget()/e.prefillT(len(rows[admitted[0]].it.ctx), c.S))
		n = min(n, len(admitted))
		if err := e.prefillRows(gs, c, rows, admitted[:n], genGroup{}, 0, nil); err != nil {
			return err
		}
		admitted = admitted[n:]
	}
	return nil
}
