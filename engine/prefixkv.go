package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
)

// Cached prefixes (Options.PrefixCacheMB): a prefix that packing would lay
// out again at the head of several rows — a task's few-shot block, shared
// by more questions than one row holds (plan/prefix.go) — is run once on
// its own, and its keys and values (every layer's, [1, K, P, D]) stay
// resident in an LRU store within the budget. The rows below it then hold
// only their own tokens and attend to the stored prefix
// (models.Inputs.Past). An entry is keyed by its token ids;
// each Engine (each WithAdapter view) has its own store, so an adapter
// never sees another's prefix. When the budget is spent the least
// recently used entries not in use are freed. A prefix larger than the
// budget is not cached: its rows are packed with the prefix in them, as
// without the store. One the store cannot keep because the entries in use
// fill it runs for its pass, is freed after it and runs again when needed:
// recomputing is always correct.

// DefaultPrefixCacheMB is the prefix store's budget when
// Options.PrefixCacheMB is 0 (on backends where shapes are cheap, see
// prefixRule): at Qwen2.5-0.5B's shape (24 layers, 2 KV heads of 64)
// 256 MiB hold about 10,000 prefix tokens.
const DefaultPrefixCacheMB = 256

// prefixKey names a prefix of ids laid out in pb slots.
func prefixKey(ids []int32, pb int) string {
	h := sha256.New()
	_ = binary.Write(h, binary.LittleEndian, ids)
	return fmt.Sprintf("%d/%d/%x", len(ids), pb, h.Sum(nil))
}

// prefixBytes is the size of a cached prefix of pb slots: K and V of every
// layer in the compute dtype.
func (e *Engine) prefixBytes(pb int) int64 {
	l, k, d := e.model.CacheDims()
	return int64(2*l*k*pb*d) * int64(e.prec.compute.Size())
}

// prefixSlots is the padded length of a cached prefix of p tokens.
func (e *Engine) prefixSlots(p int) int { return e.shapeRule().T(p, e.maxLen) }

// runPrefixes runs prefixes (each at most pb ids) in one pass, as rows of
// pb slots (a power of two of them where shapes are not cheap), and
// returns each one's keys and values.
func (e *Engine) runPrefixes(ids [][]int32, pb int) ([][]*tensors.Tensor, error) {
	rows := len(ids)
	if !e.cheapShapes() {
		rows = plan.BucketPow2(rows)
	}
	tok := make([]int32, rows*pb)
	n := 0
	for i, x := range ids {
		copy(tok[i*pb:], x)
		n += len(x)
	}
	args := []any{tensors.FromFlatDataAndDimensions(tok, rows, pb)}
	key := prefixGraphKey(rows, pb)
	exec, err := e.prefixGraphs().exec(key)
	if err != nil {
		return nil, err
	}
	if err := e.compileOnce(exec, key, args); err != nil {
		return nil, err
	}
	start := time.Now()
	outs, err := exec.Exec(args...)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", key, err)
	}
	e.stats.ExecTime += time.Since(start)
	e.stats.Batches++
	e.stats.Tokens += n
	e.stats.TokensComputed += n
	e.stats.PaddedTokens += rows * pb
	e.stats.PrefixComputed += len(ids)
	per := len(outs) / rows
	kv := make([][]*tensors.Tensor, len(ids))
	for i := range kv {
		kv[i] = outs[i*per : (i+1)*per]
	}
	freeAll(outs[len(ids)*per:]) // padding rows
	return kv, nil
}

// prefixGraphKey names the prefix graph's shape.
func prefixGraphKey(rows, pb int) string { return fmt.Sprintf("prefix B=%d T=%d", rows, pb) }

// prefixGraphs returns the prefix graph's Execs.
func (e *Engine) prefixGraphs() *graphExecs {
	if e.execs.prefix == nil {
		e.execs.prefix = newGraphExecs(e, "prefix", prefixGraph(e.model))
	}
	return e.execs.prefix
}

// prefixGraph runs prefixes alone and returns each one's keys and values.
// On a LongRoPE model every cached prefix belongs to items of at most
// LongRopeLength tokens (plan.Options.MaxPackedInput keeps longer ones
// unpacked, where nothing is cached), so it takes the short factors, as
// those items' one-pass rows do; its row length is given (models.Inputs.
// RowLen) so that Pb padded slots past the switch do not read as a long
// sequence.
//
//	tokens [G, Pb] int32 → prefix g's K, V of every layer: G × 2L × [1, K, Pb, D]
func prefixGraph(m models.Model) func(ctx *mlctx.Context, tokens *graph.Node) []*graph.Node {
	return func(ctx *mlctx.Context, tokens *graph.Node) []*graph.Node {
		defer building()()
		in := models.Inputs{Tokens: tokens, ReturnKV: true}
		if orig := m.Config().LongRopeLength(); orig > 0 {
			n := make([]int32, tokens.Shape().Dim(0))
			for i := range n {
				n[i] = int32(min(tokens.Shape().Dim(1), orig))
			}
			in.RowLen = graph.Const(tokens.Graph(), n)
		}
		kv := m.Forward(ctx, in).KV
		g := tokens.Shape().Dim(0)
		out := make([]*graph.Node, 0, g*2*len(kv))
		for i := range g {
			row := func(x *graph.Node) *graph.Node { return graph.Slice(x, graph.AxisRange(i, i+1)) }
			for _, x := range kv {
				out = append(out, row(x.K), row(x.V))
			}
		}
		return out
	}
}

// prefixRule is the plan's view of the store (nil without one). By
// default (Options.PrefixCacheMB 0) the store is used only where shapes
// are cheap: on XLA its passes and prefixes add shapes, each a compile,
// and a stacked copy of each pass's prefixes; mmlu_stem 5-shot --limit 16
// at 0.5B on xla-cpu took 74 s with it against 70 s without (12.6 against
// 6.7 s compiling, 3.8 against 3.1 GB resident).
func (e *Engine) prefixRule() *plan.PrefixRule {
	if e.prefixes == nil || e.opts.PrefixCacheMB == 0 && !e.cheapShapes() {
		return nil
	}
	return &plan.PrefixRule{Slots: e.prefixSlots, Fits: func(pb int) bool { return e.prefixes.fits(e.prefixBytes(pb)) }}
}

// passPrefix is the keys and values of the cached prefixes one pass
// attends to: prefix g's are kv[2L·g:2L·(g+1)] (g as plan.Pass.Prefixes
// and Layout.RowPrefix number them).
type passPrefix struct {
	e     *Engine
	kv    []*tensors.Tensor
	keys  []string          // the store's entries pinned for the pass
	owned []*tensors.Tensor // prefixes the store could not keep
}

// passPrefixes gathers the keys and values of pass p's cached prefixes
// (none when it has none), each laid out in pb slots, from the store or
// run now; each run counts as done work. Where shapes are not cheap (each
// one a compile) a pass takes B prefixes, the first repeated, so that it
// adds no shape beyond its (B, T, K).
func (e *Engine) passPrefixes(p *plan.Pass, pb int, step *lm.Step) (*passPrefix, error) {
	pp := &passPrefix{e: e}
	if len(p.Prefixes) == 0 {
		return pp, nil
	}
	if err := pp.fetch(p.Prefixes, pb, step); err != nil {
		pp.release()
		return nil, err
	}
	if !e.cheapShapes() { // one shape per pass shape: B prefixes, the first repeated
		per := len(pp.kv) / len(p.Prefixes)
		for g := len(p.Prefixes); g < p.B; g++ {
			pp.kv = append(pp.kv, pp.kv[:per]...)
		}
	}
	return pp, nil
}

// fetch gets the keys and values of prefixes (each laid out in pb slots)
// into pp.kv, in order: the store's (pinned) and, in one pass, the others
// (stored and pinned where the budget allows, else owned by pp).
func (pp *passPrefix) fetch(prefixes [][]int32, pb int, step *lm.Step) error {
	e := pp.e
	refs := make([][]*tensors.Tensor, len(prefixes))
	var missing []int
	var ids [][]int32
	var keys []string // the missing ones'
	for i, x := range prefixes {
		key := prefixKey(x, pb)
		if refs[i] = e.prefixes.get(key); refs[i] != nil {
			e.stats.PrefixHits++
			e.prefixes.pin(key)
			pp.keys = append(pp.keys, key)
			continue
		}
		missing, ids, keys = append(missing, i), append(ids, x), append(keys, key)
	}
	if len(missing) > 0 {
		kv, err := e.runPrefixes(ids, pb)
		if err != nil {
			return fmt.Errorf("cached prefixes: %w", err)
		}
		for j, i := range missing {
			refs[i] = kv[j]
			step.Done = min(step.Done+len(ids[j]), step.Total)
			if key := keys[j]; e.prefixes.put(key, kv[j], e.prefixBytes(pb)) {
				e.prefixes.pin(key)
				pp.keys = append(pp.keys, key)
			} else {
				pp.owned = append(pp.owned, kv[j]...)
			}
		}
	}
	for _, r := range refs {
		pp.kv = append(pp.kv, r...)
	}
	return nil
}

// attach is the pass of layout l, attending to the prefixes (none
// without any).
func (pp *passPrefix) attach(l *plan.Layout) *pass {
	return &pass{Layout: l, prefixKV: pp.kv}
}

// release unpins the pass's store entries and frees what it owns.
func (pp *passPrefix) release() {
	if pp == nil {
		return
	}
	for _, k := range pp.keys {
		pp.e.prefixes.unpin(k)
	}
	freeAll(pp.owned)
	pp.keys, pp.owned, pp.kv = nil, nil, nil
}

// prefixShapes are placeholder tensors of a cached prefix's shapes (pb
// slots), for compiling ahead.
func (e *Engine) prefixShapes(pb int) []*tensors.Tensor {
	l, k, d := e.model.CacheDims()
	dtype := e.prec.compute
	out := make([]*tensors.Tensor, 2*l)
	for i := range out {
		out[i] = tensors.FromShape(shapes.Make(dtype, 1, k, pb, d))
	}
	return out
}
