package engine

// LongRoPE generation (Phi-3/3.5, Phi-4-mini). A row's rotary factors are
// the short ones while its sequence fits original_max_position_embeddings
// (orig) and the long ones beyond, so the keys cached while a generation
// was short are rotated by the wrong factors once it grows past orig.
// transformers' Phi-3 drops its cache when a sequence first grows past
// orig and runs the whole sequence again; so does the engine: the step
// that feeds a row the token at position orig re-prefills the row (prompt
// and generated ids) instead, which rewrites its cache with the long
// factors and gives that step's logits. A row longer than a chunk
// re-prefills a chunk at a time where prompts do (genchunk.go: every chunk
// takes the long factors of the whole row).

// crossingRows are the busy rows whose token this step sits at position
// orig (the first of a sequence longer than orig), for a LongRoPE model;
// nil otherwise. pos holds each row's position this step.
func (e *Engine) crossingRows(rows []*genRow, pos []int32) []int {
	orig := e.cfg.LongRopeLength()
	if orig == 0 {
		return nil
	}
	var out []int
	for r, row := range rows {
		if row != nil && int(pos[r]) == orig {
			out = append(out, r)
		}
	}
	return out
}

// reprefill runs the rows crossing the LongRoPE switch again whole —
// prompt and generated ids — in one prefill, or a chunk at a time for a
// row longer than a chunk (their decode logits of this step are dropped),
// and picks each one's next token from it.
func (e *Engine) reprefill(gs *genState, c *kvCache, rows []*genRow, crossing []int) error {
	if len(crossing) == 0 {
		return nil
	}
	items := make([]*genItem, len(crossing))
	for i, r := range crossing {
		row := rows[r]
		items[i] = row.it
		whole := *row.it // the same stopper and sampler
		whole.ctx = append(append(make([]int32, 0, len(row.it.ctx)+len(row.ids)), row.it.ctx...), row.ids...)
		row.it = &whole
	}
	held := make([]*genRow, len(crossing))
	for i, r := range crossing {
		held[i] = rows[r] // push frees a row that finishes
	}
	err := e.prefillCrossing(gs, c, rows, crossing)
	for i, row := range held {
		row.it = items[i]
	}
	return err
}

// prefillCrossing prefills the crossing rows, their ctx now the whole
// sequence: each one longer than a chunk in chunks (prefillChunks) where
// prompts prefill so, the others together in one prefill.
func (e *Engine) prefillCrossing(gs *genState, c *kvCache, rows []*genRow, crossing []int) error {
	var whole []int
	for _, r := range crossing {
		if len(rows[r].it.ctx) <= e.chunkTokens() || !e.chunkable(genGroup{}) {
			whole = append(whole, r)
			continue
		}
		if err := e.prefillChunks(gs, c, rows, r); err != nil {
			return err
		}
	}
	if len(whole) == 0 {
		return nil
	}
	return e.prefillRows(gs, c, rows, whole, genGroup{}, 0, nil)
}
