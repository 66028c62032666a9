package engine

import (
	"context"
	"fmt"
	"time"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmenc"
)

// Score is the engine's answer for one (input, continuation) row.
type Score struct {
	LogProb   float64
	IsGreedy  bool
	NumTokens int
	// TokenLogProbs (each continuation token's log-prob), TopIDs and
	// TopLogProbs (the argmax token at each position and its log-prob) are
	// set only by ScoreIDs with tokens=true.
	TokenLogProbs []float64
	TopIDs        []int32
	TopLogProbs   []float64
}

// Loglikelihood implements LM (lm-eval HFLM.loglikelihood).
func (e *Engine) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	items := make([]plan.Item, len(reqs))
	for i, r := range reqs {
		ctxIDs, contIDs, err := e.encodeRequest(r)
		if err == nil {
			items[i], err = makeItem(ctxIDs, contIDs, e.maxLen)
		}
		if err != nil {
			return nil, requestError(i, err)
		}
	}
	scores, err := e.scoreItems(ctx, items, false)
	if err != nil {
		return nil, err
	}
	out := make([]lm.LoglikelihoodResult, len(reqs))
	for i, s := range scores {
		out[i] = lm.LoglikelihoodResult{LogProb: s.LogProb, IsGreedy: s.IsGreedy, NumTokens: s.NumTokens}
	}
	return out, nil
}

// encodeRequest returns a request's context and continuation ids: the ids
// when given (an empty context becomes [prefix]), else the strings through
// the tokenizer with lm-eval's _encode_pair.
func (e *Engine) encodeRequest(r lm.LoglikelihoodRequest) (ctxIDs, contIDs []int32, err error) {
	if len(r.ContextIDs) > 0 || len(r.ContinuationIDs) > 0 {
		ctxIDs, contIDs = r.ContextIDs, r.ContinuationIDs
		if len(ctxIDs) == 0 {
			ctxIDs, contIDs = lmenc.SplitEmptyContext(e.prefix, contIDs)
		}
	} else {
		if e.opts.Tokenizer == nil {
			return nil, nil, errs.BadInputf("string request but no tokenizer is loaded; give context_ids/continuation_ids or load a tokenizer")
		}
		ctxIDs, contIDs = lmenc.Pair(e.opts.Tokenizer, r.Context, r.Continuation, e.specials())
	}
	if err := checkIDs(ctxIDs, e.cfg.VocabSize, "context_ids"); err != nil {
		return nil, nil, err
	}
	return ctxIDs, contIDs, checkIDs(contIDs, e.cfg.VocabSize, "continuation_ids")
}

// LoglikelihoodRolling implements LM (lm-eval
// HFLM.loglikelihood_rolling): the sum over disjoint windows of max_length tokens.
func (e *Engine) LoglikelihoodRolling(ctx context.Context, reqs []lm.RollingRequest) ([]lm.RollingResult, error) {
	var items []plan.Item
	owner := []int{}
	for i, r := range reqs {
		ids := r.IDs
		if ids == nil {
			if e.opts.Tokenizer == nil {
				return nil, requestError(i, errs.BadInputf("text request but no tokenizer is loaded; give token ids or load a tokenizer"))
			}
			ids = lmenc.TokEncode(e.opts.Tokenizer, r.Text, e.specials())
		}
		if err := checkIDs(ids, e.cfg.VocabSize, "ids"); err != nil {
			return nil, requestError(i, err)
		}
		for _, w := range lmenc.RollingWindows(ids, e.maxLen, e.prefix) {
			it, err := makeItem(w.Ctx, w.Cont, e.maxLen)
			if err != nil {
				return nil, requestError(i, err)
			}
			items = append(items, it)
			owner = append(owner, i)
		}
	}
	scores, err := e.scoreItems(ctx, items, false)
	if err != nil {
		return nil, err
	}
	out := make([]lm.RollingResult, len(reqs))
	for j, s := range scores {
		out[owner[j]].LogProb += s.LogProb
		out[owner[j]].NumTokens += s.NumTokens
	}
	return out, nil
}

// ScoreIDs scores rows given as token ids (context, continuation) with the
// loglikelihood rules; tokens=true also returns per-token log-probs (for
// debugging; it compiles a second graph).
func (e *Engine) ScoreIDs(ctx context.Context, ctxIDs, contIDs [][]int32, tokens bool) ([]Score, error) {
	items := make([]plan.Item, len(ctxIDs))
	for i := range ctxIDs {
		r := lm.LoglikelihoodRequest{ContextIDs: ctxIDs[i], ContinuationIDs: contIDs[i]}
		c, k, err := e.encodeRequest(r)
		if err == nil {
			items[i], err = makeItem(c, k, e.maxLen)
		}
		if err != nil {
			return nil, requestError(i, err)
		}
	}
	return e.scoreItems(ctx, items, tokens)
}

// scoreItems plans items' passes (package plan: deduplicated, packed or
// batched) and scores them; results are in input order. Items with no
// targets score 0 and are greedy (an empty sum; all() of nothing).
func (e *Engine) scoreItems(ctx context.Context, items []plan.Item, tokens bool) ([]Score, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return nil, fmt.Errorf("engine: used after Close")
	}
	for _, it := range items {
		e.stats.TokensRequested += len(it.Input)
	}
	pl := plan.New(items, e.planOptions())
	step := &lm.Step{Total: pl.Tokens()}
	results, err := e.scorePlan(ctx, pl, tokens, step, len(items))
	if err != nil {
		return nil, err
	}
	out := make([]Score, len(items))
	for i, j := range pl.Index {
		if n := results[j].NumTokens; n != len(pl.Items[j].Targets) {
			return nil, fmt.Errorf("engine: request %d scored %d positions, want %d", i, n, len(pl.Items[j].Targets))
		}
		out[i] = results[j]
		if e.lpRound != nil { // a request's sum in the half dtype (lpround.go)
			out[i].LogProb = e.lpRound(out[i].LogProb)
		}
	}
	return out, nil
}

// scorePlan runs pl's passes and returns the scores of pl.Items. A pass
// that runs out of device memory with the batch auto halves the engine's
// batch, and the items of that pass and the ones after it are planned
// again and scored (oom.go). step is the call's progress (of requests
// requests).
func (e *Engine) scorePlan(ctx context.Context, pl *plan.Plan, tokens bool, step *lm.Step, requests int) ([]Score, error) {
	results := make([]Score, len(pl.Items))
	for i := range results {
		results[i].IsGreedy = true
	}
	if err := e.compileScoring(pl); err != nil {
		return nil, err
	}
	for i := range pl.Passes {
		p := &pl.Passes[i]
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		err := e.scorePass(ctx, p, pl.PrefixSlots, tokens, results, step, requests)
		if err == nil {
			continue
		}
		if !e.canBackOff(err, p.B) {
			return nil, err
		}
		e.noteBackOff("scoring", p.B, err)
		e.batch = p.B / 2 // p.B ≤ e.batch: the rows that did not fit
		return e.rescore(ctx, pl, pl.Passes[i:], tokens, results, step, requests)
	}
	return results, nil
}

// scorePass runs one pass (after its cached prefixes) into results and
// reports the call's progress.
func (e *Engine) scorePass(ctx context.Context, p *plan.Pass, pb int, tokens bool, results []Score, step *lm.Step, requests int) error {
	pre, err := e.passPrefixes(p, pb, step)
	if err == nil {
		err = tryCatch("score batch", func() error {
			ps := pre.attach(p.Layout())
			if err := e.runPass(ps, tokens, results); err != nil {
				return err
			}
			step.Done += ps.Real
			return nil
		})
	}
	pre.release()
	if err != nil {
		return err
	}
	step.Tokens = step.Done
	step.Requests = requests * step.Done / max(step.Total, 1)
	lm.ReportStep(ctx, *step)
	return nil
}

// rescore scores the items of passes (the failed pass of pl and those
// after it) in a new plan with the engine's batch, into results.
func (e *Engine) rescore(ctx context.Context, pl *plan.Plan, passes []plan.Pass, tokens bool, results []Score, step *lm.Step, requests int) ([]Score, error) {
	var idx []int
	var items []plan.Item
	for i := range passes {
		for _, j := range passes[i].ItemIndices() { // each item is in one pass
			idx, items = append(idx, j), append(items, pl.Items[j])
		}
	}
	sub := plan.New(items, e.planOptions())
	step.Total = step.Done + sub.Tokens()
	got, err := e.scorePlan(ctx, sub, tokens, step, requests)
	if err != nil {
		return nil, err
	}
	for k, j := range idx {
		results[j] = got[sub.Index[k]]
	}
	return results, nil
}

// runPass runs the hidden-state graph on one pass (compiling its shape on
// first use), then the LM head on its used slots (head.go), and adds the
// slots' scores into results. A row longer than a chunk runs a chunk at a
// time on the pure-Go backend (scorechunk.go).
func (e *Engine) runPass(p *pass, tokens bool, results []Score) error {
	if n, ok := e.chunkedScoreLen(p); ok {
		return e.runPassChunked(p, n, tokens, results)
	}
	args := p.args()
	key := p.key()
	exec, err := e.scoreGraphs(p.Kind).exec(key)
	if err != nil {
		return err
	}
	if err := e.compileOnce(exec, key, args); err != nil {
		return err
	}
	if err := injectOOM("scoring", p.B, p.B*p.T); err != nil {
		return fmt.Errorf("run %s: %w", key, err)
	}
	start := time.Now()
	outs, err := exec.Exec(args...)
	if err != nil {
		return fmt.Errorf("run %s: %w", key, err)
	}
	e.stats.ExecTime += time.Since(start)
	e.stats.Batches++
	e.stats.Tokens += p.Real
	e.stats.TokensComputed += p.Real
	e.stats.PaddedTokens += p.B * p.T
	e.stats.LastB, e.stats.LastT, e.stats.LastK = p.B, p.T, p.K
	defer func() {
		for _, t := range outs {
			_ = t.FinalizeAll()
		}
	}()
	return e.runHead(outs[0], p, tokens, results)
}

// compileOnce compiles exec for args on the first use of the shape key
// names (unless compileAhead did).
func (e *Engine) compileOnce(exec *mlctx.Exec, key string, args []any) error {
	if e.seen[key] {
		return nil
	}
	start := time.Now()
	hits0, _ := CompileCacheStats()
	if err := exec.PreCompile(args...); err != nil {
		return fmt.Errorf("compile %s graph: %w", key, err)
	}
	d := time.Since(start)
	e.seen[key] = true
	e.stats.Compiles++
	e.stats.CompileTime += d
	from := ""
	if hits, _ := CompileCacheStats(); hits > hits0 {
		from = ", from the compile cache"
	}
	e.opts.logf("compiled %s graph in %v (%d graphs so far%s)", key, d.Round(time.Microsecond), e.stats.Compiles, from)
	return nil
}

// collect adds the head outputs for the used slots from, from+1, … of pass
// p into results: each item's log-probs summed in continuation order (from
// 0, as before packing), its greedy flag and token count.
func collect(h headOut, p *pass, from int, tokens bool, results []Score) {
	for k := from; k < min(from+len(h.lp), len(p.SlotItem)); k++ {
		s := &results[p.SlotItem[k]]
		s.LogProb += h.lp[k-from]
		s.IsGreedy = s.IsGreedy && !h.miss[k-from]
		s.NumTokens++
		if tokens {
			s.TokenLogProbs = append(s.TokenLogProbs, h.lp[k-from])
			s.TopIDs = append(s.TopIDs, h.topID[k-from])
			s.TopLogProbs = append(s.TopLogProbs, h.topLP[k-from])
		}
	}
}

// headOut is one LM-head chunk's output (topID and topLP only when
// per-token results were asked for).
type headOut struct {
	lp    []float64
	miss  []bool
	topID []int32
	topLP []float64
}

// scoreGraphs returns the hidden-state graphs of rows of a kind.
func (e *Engine) scoreGraphs(kind plan.Kind) *graphExecs {
	g := &e.execs.unpacked
	switch kind {
	case plan.Packed:
		g = &e.execs.packed
	case plan.After:
		g = &e.execs.after
	}
	if *g == nil {
		*g = newGraphExecs(e, "scoring", hiddenGraph(e.model, kind))
	}
	return *g
}
