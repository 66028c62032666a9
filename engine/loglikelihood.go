package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
)

// Score is the engine's answer for one (input, continuation) row.
type Score struct {
	LogProb   float64
	IsGreedy  bool
	NumTokens int
	// TokenLogProbs is set only by ScoreIDs with tokens=true.
	TokenLogProbs []float64
}

// Loglikelihood implements LM (lm-eval loglikelihood, spec §8.1).
func (e *Engine) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	items := make([]item, len(reqs))
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
			ctxIDs, contIDs = splitEmptyContext(e.prefix, contIDs)
		}
	} else {
		if e.opts.Tokenizer == nil {
			return nil, nil, errs.BadInputf("string request but no tokenizer is loaded; give context_ids/continuation_ids or load a tokenizer")
		}
		ctxIDs, contIDs = encodePair(e.opts.Tokenizer, r.Context, r.Continuation, e.prefix)
	}
	if err := checkIDs(ctxIDs, e.cfg.VocabSize, "context_ids"); err != nil {
		return nil, nil, err
	}
	return ctxIDs, contIDs, checkIDs(contIDs, e.cfg.VocabSize, "continuation_ids")
}

// LoglikelihoodRolling implements LM (lm-eval loglikelihood_rolling, spec
// §8.2): the sum over disjoint windows of max_length tokens.
func (e *Engine) LoglikelihoodRolling(ctx context.Context, reqs []lm.RollingRequest) ([]lm.RollingResult, error) {
	var items []item
	owner := []int{}
	for i, r := range reqs {
		ids := r.IDs
		if ids == nil {
			if e.opts.Tokenizer == nil {
				return nil, requestError(i, errs.BadInputf("text request but no tokenizer is loaded; give token ids or load a tokenizer"))
			}
			ids = tokEncode(e.opts.Tokenizer, r.Text)
		}
		if err := checkIDs(ids, e.cfg.VocabSize, "ids"); err != nil {
			return nil, requestError(i, err)
		}
		for _, w := range rollingWindows(ids, e.maxLen, e.prefix) {
			it, err := makeItem(w.ctx, w.cont, e.maxLen)
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
	items := make([]item, len(ctxIDs))
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

// scoreItems deduplicates, batches and scores items; results are in input
// order. Items with no targets score 0 and are greedy (an empty sum; all()
// of nothing).
func (e *Engine) scoreItems(ctx context.Context, items []item, tokens bool) ([]Score, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return nil, fmt.Errorf("engine: used after Close")
	}
	uniq, index := dedup(items)
	results := make([]Score, len(uniq))
	for i := range results {
		results[i].IsGreedy = true
	}
	for _, b := range planBatches(uniq, e.batch, e.maxLen) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := tryCatch("score batch", func() error { return e.runBatch(uniq, b, tokens, results) }); err != nil {
			return nil, err
		}
	}
	out := make([]Score, len(items))
	for i, j := range index {
		out[i] = results[j]
	}
	return out, nil
}

// runBatch pads one batch, runs the graph (compiling its shape on first
// use) and stores the rows' scores in results.
func (e *Engine) runBatch(items []item, b batch, tokens bool, results []Score) error {
	tok := make([]int32, b.B*b.T)
	row := make([]int32, b.K)
	pos := make([]int32, b.K)
	tgt := make([]int32, b.K)
	mask := make([]bool, b.K)
	nReal, slot := 0, 0
	for r, idx := range b.rows {
		it := items[idx]
		copy(tok[r*b.T:], it.inp)
		n, c := len(it.inp), len(it.targets)
		for j := range c {
			row[slot], pos[slot], tgt[slot], mask[slot] = int32(r), int32(n-c+j), it.targets[j], true
			slot++
		}
		nReal += n
	}
	args := []any{
		tensors.FromFlatDataAndDimensions(tok, b.B, b.T),
		tensors.FromFlatDataAndDimensions(row, b.K),
		tensors.FromFlatDataAndDimensions(pos, b.K),
		tensors.FromFlatDataAndDimensions(tgt, b.K),
		tensors.FromFlatDataAndDimensions(mask, b.K),
	}
	exec, err := e.exec(tokens)
	if err != nil {
		return err
	}
	key := fmt.Sprintf("%v/%d/%d/%d", tokens, b.B, b.T, b.K)
	if !e.seen[key] {
		start := time.Now()
		if err := exec.PreCompile(args...); err != nil {
			return fmt.Errorf("compile B=%d T=%d K=%d: %w", b.B, b.T, b.K, err)
		}
		d := time.Since(start)
		e.seen[key] = true
		e.stats.Compiles++
		e.stats.CompileTime += d
		e.opts.logf("compiled scoring graph B=%d T=%d K=%d in %v (%d graphs so far)", b.B, b.T, b.K, d.Round(time.Microsecond), e.stats.Compiles)
	}
	start := time.Now()
	outs, err := exec.Exec(args...)
	if err != nil {
		return fmt.Errorf("run B=%d T=%d K=%d: %w", b.B, b.T, b.K, err)
	}
	e.stats.ExecTime += time.Since(start)
	e.stats.Batches++
	e.stats.Tokens += nReal
	e.stats.PaddedTokens += b.B * b.T
	e.stats.LastB, e.stats.LastT, e.stats.LastK = b.B, b.T, b.K
	return collect(outs, b, items, results)
}

// collect copies the graph outputs of batch b into results.
func collect(outs []*tensors.Tensor, b batch, items []item, results []Score) error {
	defer func() {
		for _, t := range outs {
			_ = t.FinalizeAll()
		}
	}()
	sums := tensors.MustCopyFlatData[float64](outs[0])
	misses := tensors.MustCopyFlatData[int32](outs[1])
	counts := tensors.MustCopyFlatData[int32](outs[2])
	var toks []float64
	if len(outs) > 3 {
		toks = tensors.MustCopyFlatData[float64](outs[3])
	}
	slot := 0
	for r, idx := range b.rows {
		c := len(items[idx].targets)
		if int(counts[r]) != c {
			return fmt.Errorf("row %d scored %d positions, want %d", r, counts[r], c)
		}
		s := Score{LogProb: sums[r], IsGreedy: misses[r] == 0, NumTokens: c}
		if toks != nil {
			s.TokenLogProbs = append([]float64(nil), toks[slot:slot+c]...)
		}
		slot += c
		results[idx] = s
	}
	return nil
}

// exec returns the scoring Exec (one per withTokens; it caches one
// compiled graph per input shape).
func (e *Engine) exec(tokens bool) (*mlctx.Exec, error) {
	if x := e.execs.get(tokens); x != nil {
		return x, nil
	}
	x, err := mlctx.NewExec(e.backend, e.ctx, scoreGraph(e.model, tokens))
	if err != nil {
		return nil, err
	}
	x.SetMaxCache(256)
	e.execs.set(tokens, x)
	return x, nil
}
