package engine

import (
	"context"
	"slices"
	"time"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// Continuous batching: B cache rows serve the requests, longest prompt
// first (lm-eval's order). Whenever rows are free and requests wait, the
// waiting ones are prefilled (several rows per prefill graph, up to
// prefillTokenBudget padded tokens) into the free rows; then every busy row
// decodes one token. A row whose request finished is free at the next
// step, so short answers never wait for long ones.
//
//	step:  admit → prefill(new rows) → pick → decode(all busy rows) → pick → …

// prefillTokenBudget caps P·T of one prefill graph (the memory of its
// activations), but never below one row. On goeval's pure-Go backend,
// whose tensors live in the Go heap, it is halved (prefillBudget): at
// Qwen2.5-0.5B's shape 4096 tokens held ~500 MB beyond the cache, the
// peak of a gsm8k run's live heap; 2048 halves that, in the same time.
const prefillTokenBudget = 4096

// prefillBudget is the prefill token budget on e's backend.
func (e *Engine) prefillBudget() int {
	if e.backend.String() == gocpu.Name {
		return prefillTokenBudget / 2
	}
	return prefillTokenBudget
}

// cheapShapes reports whether a graph of a new shape costs next to
// nothing: on goeval's pure-Go backend building one takes milliseconds,
// where XLA compiles for a second or more. Prefill graphs there are sized
// to the prompts (prefillT, prefillP) instead of to the length and row
// buckets, which padded 8 prompts of 750 tokens to 12 rows of 768.
func (e *Engine) cheapShapes() bool { return e.backend.String() == gocpu.Name }

// shapeRule is how this engine's graphs round their dimensions: exact
// where shapes are cheap, else to buckets (plan/shapes.go).
func (e *Engine) shapeRule() plan.Shapes { return plan.Shapes{Exact: e.cheapShapes()} }

// prefillT is the padded length of a prefill graph whose longest prompt
// has n tokens, in a cache of s slots: the length bucket, or n rounded up
// to 16 where shapes are cheap.
func (e *Engine) prefillT(n, s int) int { return min(e.shapeRule().T(n, e.maxLen), s) }

// prefillP is the row count of a prefill graph for n prompts in a cache
// of b rows: a power of two (plan.BucketB), or n where shapes are cheap.
func (e *Engine) prefillP(n, b int) int { return e.shapeRule().B(n, b) }

// floorPow2 is the largest power of two ≤ n (n ≥ 1).
func floorPow2(n int) int {
	b := 1
	for b*2 <= n {
		b *= 2
	}
	return b
}

// genRow is a cache row serving one request.
type genRow struct {
	req  int // index of the request among the pass's items; -1: fed (genfeed.go)
	call int // its index in the call (lm.TokenFunc, lm.DoneFunc)
	it   *genItem
	ids  []int32            // generated ids so far
	out  *lm.GenerateResult // where its result goes
}

// generate runs items (with the engine lock held) and returns their
// results in order. A pass that runs out of device memory with the batch
// auto restarts the requests not finished in a cache of half the rows
// (oom.go); the tokens already reported to the call's lm.TokenFunc are not
// reported again.
func (e *Engine) generate(ctx context.Context, items []genItem) ([]lm.GenerateResult, error) {
	results := make([]lm.GenerateResult, len(items))
	if len(items) == 0 {
		return results, nil
	}
	gs, err := e.genExecs()
	if err != nil {
		return nil, err
	}
	gs.base = gs.stats
	gs.onToken, gs.onDone = lm.TokenFunc(ctx), lm.DoneFunc(ctx)
	gs.reported = map[int]int{}
	gs.feed, gs.fedNext = e.feedOf(ctx), len(items)
	defer func() { gs.onToken, gs.onDone, gs.reported, gs.ids, gs.feed = nil, nil, nil, nil, nil }()
	todo := make([]int, len(items))
	for i, it := range items {
		todo[i] = i
		gs.stats.PromptTokens += len(it.ctx)
	}
	for {
		sub := make([]genItem, len(todo))
		for k, i := range todo {
			sub[k] = items[i]
			sub[k].samp.reset() // a restarted request draws from its seed again
		}
		gs.ids = todo
		got := make([]lm.GenerateResult, len(sub))
		rows, err := e.generateRows(ctx, gs, sub, got)
		var left []int
		for k, i := range todo {
			if got[k].StopReason != "" {
				results[i] = got[k]
			} else {
				left = append(left, i)
			}
		}
		if err == nil {
			return results, nil
		}
		if !e.canBackOff(err, rows) || gs.fedBusy { // fed requests are not run again
			return nil, err
		}
		e.noteBackOff("generation", rows, err)
		gs.maxRows, todo = rows/2, left
	}
}

// generateRows runs items in one cache and returns its rows; results of
// the requests that finished are set even when it fails.
func (e *Engine) generateRows(ctx context.Context, gs *genState, items []genItem, results []lm.GenerateResult) (int, error) {
	need := 0
	for _, it := range items {
		need = max(need, len(it.ctx)+it.stop.maxGen)
	}
	if gs.feed != nil { // room for fed requests longer than these (genfeed.go)
		need = min(e.maxLen, 2*need)
	}
	groups := genGroups(items, e.cfg.LongRopeLength())
	var order []int
	groupOf := make([]int, len(items))
	for g, grp := range groups {
		order = append(order, grp.members...)
		for _, m := range grp.members {
			groupOf[m] = g
		}
	}
	b, s, err := e.genShape(gs, len(items), need)
	if err != nil {
		return 0, err
	}
	cache, err := e.newCache(b, s)
	if err != nil {
		return b, err
	}
	defer cache.close()
	gs.stats.Rows = b
	if e.fixedShapes() {
		e.fixPrefillShapes(items, groups, cache)
	}
	if err := e.compileGeneration(gs, items, groups, cache); err != nil {
		return b, err
	}
	var pc prefixCache
	defer func() {
		if pc.row != nil {
			pc.row.close()
		}
	}()
	rows := make([]*genRow, cache.B)
	for next := 0; ; {
		if err := ctx.Err(); err != nil {
			return b, err
		}
		for next < len(order) && slices.Contains(rows, nil) {
			g := groupOf[order[next]]
			waiting := order[next:]
			if end := slices.IndexFunc(waiting, func(i int) bool { return groupOf[i] != g }); end >= 0 {
				waiting = waiting[:end] // one prefix per prefill
			}
			admitted := e.admit(rows, items, waiting, cache.S, groups[g])
			next += len(admitted)
			for _, r := range admitted {
				rows[r].out, rows[r].call = &results[rows[r].req], gs.ids[rows[r].req]
			}
			if err := e.startRows(gs, cache, &pc, items, g, groups[g], rows, admitted); err != nil {
				return b, err
			}
		}
		if next == len(order) && gs.feed != nil && slices.Contains(rows, nil) {
			if err := e.feedRows(gs, cache, rows); err != nil {
				return b, err
			}
		}
		e.reportGen(ctx, gs, items, rows, next)
		gs.fedBusy = slices.ContainsFunc(rows, func(r *genRow) bool { return r != nil && r.req < 0 })
		if !slices.ContainsFunc(rows, func(r *genRow) bool { return r != nil }) {
			return b, nil
		}
		if err := e.decodeStep(gs, cache, rows); err != nil {
			return b, err
		}
	}
}

// genShape is the cache of a call of n requests needing need slots each:
// its rows (genBatch, within the rows a back-off left) and slots, kept
// from call to call where shapes are fixed as on a GPU (stickyShape).
func (e *Engine) genShape(gs *genState, n, need int) (b, s int, err error) {
	s = e.shapeRule().T(need, e.maxLen)
	if b, err = e.genBatch(gs, n, s); err != nil {
		return 0, 0, err
	}
	if e.fixedShapes() {
		b, s = gs.stickyShape(b, s, e.slotBytes())
	}
	if gs.maxRows > 0 {
		b = min(b, gs.maxRows)
	}
	return b, s, nil
}

// stickyShape keeps the decode graph's shape (and so its prefill shapes)
// from one generation call of a run to the next, where each new shape is a
// compile of seconds and a few more rows or slots cost little (a GPU: a
// decode step of the 0.5B shape took 5.4 ms at 1 row and 13.2 ms at 128
// on an H100): a call that needs b rows of s slots takes the last call's
// cache when it is as large, else the cache that covers both when it fits
// in what this call's may take (genCacheBudget, or this call's own size),
// else its own, which the next call then starts from. slotBytes is a row's
// cache bytes per slot.
func (gs *genState) stickyShape(b, s, slotBytes int) (int, int) {
	lb, ls := gs.lastB, gs.lastS
	switch {
	case b <= lb && s <= ls:
		b, s = lb, ls
	case max(b, lb)*max(s, ls)*slotBytes <= max(genCacheBudget, b*s*slotBytes):
		b, s = max(b, lb), max(s, ls)
	}
	gs.lastB, gs.lastS = b, s
	return b, s
}

// admit puts waiting requests of group grp into free rows (within the
// prefill budget, or the group's fixed prefill rows; their first
// grp.prefix tokens are a shared prefix already computed) and returns
// those rows.
func (e *Engine) admit(rows []*genRow, items []genItem, waiting []int, s int, grp genGroup) []int {
	t := e.prefillT(len(items[waiting[0]].ctx)-grp.prefix, s) // the longest waiting prompt
	maxRows := max(1, e.prefillBudget()/t)
	switch {
	case grp.fixP > 0:
		maxRows = grp.fixP
	case !e.cheapShapes():
		maxRows = floorPow2(maxRows) // a full graph: its rows are a power of two
	case len(items[waiting[0]].ctx) > e.chunkTokens() && e.chunkable(grp):
		maxRows = 1 // a prompt prefilled in chunks, alone (genchunk.go)
	}
	var admitted []int
	for r := range rows {
		if rows[r] == nil && len(admitted) < min(maxRows, len(waiting)) {
			req := waiting[len(admitted)]
			rows[r] = &genRow{req: req, it: &items[req]}
			admitted = append(admitted, r)
		}
	}
	return admitted
}

// startRows prefills the admitted rows of group g: one long prompt in
// chunks (genchunk.go), else after the group's shared prefix when it has
// one, else each prompt whole.
func (e *Engine) startRows(gs *genState, c *kvCache, pc *prefixCache, items []genItem, g int, grp genGroup, rows []*genRow, admitted []int) error {
	if r, ok := e.chunkedRow(rows, admitted, grp); ok {
		return e.prefillChunks(gs, c, rows, r)
	}
	if grp.prefix == 0 || !e.opts.packing() {
		return e.prefillRows(gs, c, rows, admitted, grp, 0, nil)
	}
	if err := e.loadPrefix(gs, pc, items, g, grp, c.S); err != nil {
		return err
	}
	return e.prefillRows(gs, c, rows, admitted, grp, grp.prefix, pc)
}

// prefillRows runs the prompts of the admitted rows of group grp — whole
// (the prefill graph), or after the resident shared prefix pc of skip
// tokens (an extend graph: in place, genextend.go, or genprefix.go's) —,
// writes their cache rows and picks each one's first token.
func (e *Engine) prefillRows(gs *genState, c *kvCache, rows []*genRow, admitted []int, grp genGroup, skip int, pc *prefixCache) error {
	var x *graphExecs
	var kind string
	var args []any
	var p, real int
	if skip > 0 && e.extendsInPlace(grp) {
		x, kind, args, p, real = e.extendInPlaceArgs(gs, c, rows, admitted, skip, pc)
	} else {
		x, kind, args, p, real = e.prefillArgs(gs, c, rows, admitted, grp, skip, pc)
	}
	logits, d, err := e.runGen(x, kind, c, args)
	if err != nil {
		return err
	}
	gs.stats.Prefills++
	gs.stats.PrefillTokens += real
	gs.stats.PrefillTime += d
	v := len(logits) / p
	for i, r := range admitted {
		e.push(gs, rows, r, logits[i*v:(i+1)*v])
	}
	return nil
}

// prefillArgs are the prefill graph's (skip 0) or the whole-cache extend
// graph's (genprefix.go) shape name and arguments for the admitted rows'
// prompts, with their prefill rows and real tokens.
func (e *Engine) prefillArgs(gs *genState, c *kvCache, rows []*genRow, admitted []int, grp genGroup, skip int, pc *prefixCache) (x *graphExecs, kind string, args []any, p, real int) {
	p, n := e.prefillP(len(admitted), c.B), 0
	for _, r := range admitted {
		n = max(n, len(rows[r].it.ctx)-skip)
	}
	t := e.prefillT(n, c.S)
	if grp.fixP > 0 {
		p, t = grp.fixedDims(len(admitted))
	}
	tok, pos, last, real := promptArgs(rows, admitted, skip, p, t)
	src, sel := make([]int32, c.B), make([]bool, c.B)
	for i, r := range admitted {
		src[r], sel[r] = int32(i), true
	}
	x, kind = gs.prefill, "prefill"
	args = []any{tensors.FromFlatDataAndDimensions(tok, p, t)}
	if skip > 0 {
		args = append(args, tensors.FromFlatDataAndDimensions(pos, p, t))
		x, kind = gs.extend, "extend"
	}
	args = append(args, tensors.FromFlatDataAndDimensions(last, p),
		tensors.FromFlatDataAndDimensions(src, c.B), tensors.FromFlatDataAndDimensions(sel, c.B))
	if skip > 0 {
		for _, pt := range pc.row.t {
			args = append(args, pt)
		}
	}
	return x, kind, args, p, real
}

// promptArgs are a prefill's inputs for the admitted rows' prompts after
// their first skip tokens, in p rows of t: the tokens (padded with 0),
// their positions skip … skip+t−1, each row's last real token, and the
// real tokens in all.
func promptArgs(rows []*genRow, admitted []int, skip, p, t int) (tok, pos, last []int32, real int) {
	tok, pos, last = make([]int32, p*t), make([]int32, p*t), make([]int32, p)
	for i := range pos {
		pos[i] = int32(skip + i%t)
	}
	for i, r := range admitted {
		rest := rows[r].it.ctx[skip:]
		copy(tok[i*t:], rest)
		last[i] = int32(len(rest) - 1)
		real += len(rest)
	}
	return tok, pos, last, real
}

// decodeStep feeds every busy row its last token and picks the next one.
// Free rows run a dummy token at position 0 (their cache row is replaced
// wholesale when a request is admitted).
func (e *Engine) decodeStep(gs *genState, c *kvCache, rows []*genRow) error {
	tok := make([]int32, c.B)
	pos := make([]int32, c.B)
	busy := 0
	for r, row := range rows {
		if row != nil {
			tok[r] = row.ids[len(row.ids)-1]
			pos[r] = int32(len(row.it.ctx) + len(row.ids) - 1)
			busy++
		}
	}
	args := []any{tensors.FromFlatDataAndDimensions(tok, c.B), tensors.FromFlatDataAndDimensions(pos, c.B)}
	pick, d, err := e.runDecode(gs, c, rows, args)
	if err != nil {
		return err
	}
	gs.stats.DecodeSteps++
	gs.stats.DecodeTokens += busy
	gs.stats.DecodeTime += d
	crossing := e.crossingRows(rows, pos) // genlongrope.go
	for r, row := range rows {
		if row != nil && !slices.Contains(crossing, r) {
			e.pushID(gs, rows, r, pick(r))
		}
	}
	return e.reprefill(gs, c, rows, crossing)
}

// runDecode runs one decode step, through the greedy graph when every busy
// row is greedy and the backend has one (greedy.go), and returns the
// function giving row r's next token.
func (e *Engine) runDecode(gs *genState, c *kvCache, rows []*genRow, args []any) (func(r int) int32, time.Duration, error) {
	if g := e.greedyExecs(gs); g != nil && allGreedy(rows) {
		ids, d, err := e.runGreedy(g, c, args)
		return func(r int) int32 { return ids[r] }, d, err
	}
	logits, d, err := e.runGen(gs.decode, "decode", c, args)
	v := len(logits) / c.B
	return func(r int) int32 { return rows[r].it.samp.pick(logits[r*v : (r+1)*v]) }, d, err
}

// push appends row r's next token picked from its logits (and reports it
// to the call's lm.TokenFunc); a finished row stores its result (and
// reports it to the call's lm.DoneFunc) and becomes free.
func (e *Engine) push(gs *genState, rows []*genRow, r int, logits []float32) {
	e.pushID(gs, rows, r, rows[r].it.samp.pick(logits))
}

// pushID is push of the picked token id.
func (e *Engine) pushID(gs *genState, rows []*genRow, r int, id int32) {
	row := rows[r]
	row.ids = append(row.ids, id)
	if gs.onToken != nil && len(row.ids) > gs.reported[row.call] { // not reported before a restart (generate)
		gs.onToken(row.call, id)
		gs.reported[row.call] = len(row.ids)
	}
	reason := row.it.stop.check(row.ids)
	if reason == "" {
		return
	}
	*row.out = lm.GenerateResult{Text: row.it.stop.text(row.ids, reason), IDs: row.ids, StopReason: reason}
	rows[r] = nil
	if gs.onDone != nil {
		gs.onDone(row.call, *row.out)
	}
}

// reportGen reports the requests finished so far (admitted and no longer
// in a row) and the tokens prefilled and decoded in this call.
func (e *Engine) reportGen(ctx context.Context, gs *genState, items []genItem, rows []*genRow, admitted int) {
	done := admitted
	for _, r := range rows {
		if r != nil && r.req >= 0 {
			done--
		}
	}
	tok := gs.stats.PrefillTokens + gs.stats.DecodeTokens - gs.base.PrefillTokens - gs.base.DecodeTokens
	lm.ReportStep(ctx, lm.Step{Done: done, Total: len(items), Requests: done, Tokens: tok})
}
