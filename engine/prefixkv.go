package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
)

// Cached prefixes (Options.PrefixCacheMB): a prefix that packing would lay
// out again at the head of several rows — a task's few-shot block, shared
// by more questions than one row holds (packprefix.go) — is run once on
// its own, and its keys and values (every layer's, [1, K, P, D]) stay
// resident in an LRU store within the budget. The rows below it then hold
// only their own tokens and attend to the stored prefix
// (models.Model.HiddenPackedAfter). An entry is keyed by its token ids;
// each Engine (each WithAdapter view) has its own store, so an adapter
// never sees another's prefix. When the budget is spent the least
// recently used entries are freed; a prefix that does not fit is not
// cached, and its rows are packed with the prefix in them, as without
// the store: recomputing is always correct.

// minCachedPrefix is the shortest prefix worth an entry.
const minCachedPrefix = 64

// DefaultPrefixCacheMB is the prefix store's budget when
// Options.PrefixCacheMB is 0: at Qwen2.5-0.5B's shape (24 layers, 2 KV
// heads of 64) 256 MB hold about 10,000 prefix tokens.
const DefaultPrefixCacheMB = 256

// prefixStore is an Engine's cached prefixes: at most budget bytes, least
// recently used evicted first.
type prefixStore struct {
	budget, used int64
	clock        int64
	entries      map[string]*prefixEntry
}

// prefixEntry is one cached prefix: 2L tensors (K and V per layer) of
// [1, K, Pb, D].
type prefixEntry struct {
	kv    []*tensors.Tensor
	bytes int64
	last  int64
}

// newPrefixes returns the store Options ask for: nil with packing or the
// cache off.
func (e *Engine) newPrefixes() *prefixStore {
	mb := e.opts.PrefixCacheMB
	if mb == 0 {
		mb = DefaultPrefixCacheMB
	}
	if mb < 0 || !e.opts.packing() {
		return nil
	}
	return &prefixStore{budget: int64(mb) << 20, entries: map[string]*prefixEntry{}}
}

// fits reports whether an entry of n bytes can be cached at all.
func (s *prefixStore) fits(n int64) bool { return s != nil && n <= s.budget }

// get returns the entry under key (nil if absent) and marks it used.
func (s *prefixStore) get(key string) []*tensors.Tensor {
	if s == nil {
		return nil
	}
	en := s.entries[key]
	if en == nil {
		return nil
	}
	s.clock++
	en.last = s.clock
	return en.kv
}

// put stores kv under key, evicting the least recently used entries until
// it fits; it reports false (and stores nothing) when kv alone exceeds the
// budget.
func (s *prefixStore) put(key string, kv []*tensors.Tensor, n int64) bool {
	if !s.fits(n) {
		return false
	}
	for s.used+n > s.budget {
		s.evict()
	}
	s.clock++
	s.entries[key] = &prefixEntry{kv: kv, bytes: n, last: s.clock}
	s.used += n
	return true
}

// evict frees the least recently used entry.
func (s *prefixStore) evict() {
	oldest, at := "", int64(math.MaxInt64)
	for k, en := range s.entries {
		if en.last < at {
			oldest, at = k, en.last
		}
	}
	en := s.entries[oldest]
	delete(s.entries, oldest)
	s.used -= en.bytes
	freeAll(en.kv)
}

// close frees every entry.
func (s *prefixStore) close() {
	if s == nil {
		return
	}
	for k, en := range s.entries {
		freeAll(en.kv)
		delete(s.entries, k)
	}
	s.used = 0
}

// freeAll frees tensors.
func freeAll(ts []*tensors.Tensor) {
	for _, t := range ts {
		_ = t.FinalizeAll()
	}
}

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
	dtype, _ := e.opts.computeDType()
	return int64(2*l*k*pb*d) * int64(dtype.Size())
}

// prefixSlots is the padded length of a cached prefix of p tokens.
func (e *Engine) prefixSlots(p int) int { return e.shapeRule().t(p, e.maxLen) }

// prefixPositions are the positions of a prefix of p tokens in pb slots:
// 0…p-1, then a position past every token's for the padding slots.
func prefixPositions(p, pb int) []int32 {
	pos := make([]int32, pb)
	for i := range pos {
		pos[i] = int32(i)
		if i >= p {
			pos[i] = math.MaxInt32 / 2
		}
	}
	return pos
}

// prefixKV returns the keys and values of prefix ids in pb slots: the
// store's, or computed now (and stored when the budget allows; owned
// reports that the caller must free them instead).
func (e *Engine) prefixKV(ids []int32, pb int) (kv []*tensors.Tensor, owned bool, err error) {
	key := prefixKey(ids, pb)
	if kv := e.prefixes.get(key); kv != nil {
		e.stats.PrefixHits++
		return kv, false, nil
	}
	tok := make([]int32, pb)
	copy(tok, ids)
	args := []any{tensors.FromFlatDataAndDimensions(tok, 1, pb)}
	gkey := prefixGraphKey(pb)
	exec, err := e.prefixGraphs().exec(gkey)
	if err != nil {
		return nil, false, err
	}
	if err := e.compileOnce(exec, gkey, args); err != nil {
		return nil, false, err
	}
	start := time.Now()
	kv, err = exec.Exec(args...)
	if err != nil {
		return nil, false, fmt.Errorf("run %s: %w", gkey, err)
	}
	e.stats.ExecTime += time.Since(start)
	e.stats.Batches++
	e.stats.Tokens += len(ids)
	e.stats.TokensComputed += len(ids)
	e.stats.PaddedTokens += pb
	e.stats.PrefixComputed++
	return kv, !e.prefixes.put(key, kv, e.prefixBytes(pb)), nil
}

// prefixGraphKey names the prefix graph's shape.
func prefixGraphKey(pb int) string { return fmt.Sprintf("prefix T=%d", pb) }

// prefixGraphs returns the prefix graph's Execs.
func (e *Engine) prefixGraphs() *graphExecs {
	if e.execs.prefix == nil {
		e.execs.prefix = newGraphExecs(e, "prefix", prefixGraph(e.model))
	}
	return e.execs.prefix
}

// prefixGraph runs a prefix alone and returns its keys and values.
//
//	tokens [1, Pb] int32 → K, V of every layer: 2L × [1, K, Pb, D]
func prefixGraph(m models.Model) func(ctx *mlctx.Context, tokens *graph.Node) []*graph.Node {
	return func(ctx *mlctx.Context, tokens *graph.Node) []*graph.Node {
		defer building()()
		_, kv := m.Prefill(ctx, tokens)
		out := make([]*graph.Node, 0, 2*len(kv))
		for _, x := range kv {
			out = append(out, x.K, x.V)
		}
		return out
	}
}

// prefixRule is planPacked's view of the store (nil without one).
func (e *Engine) prefixRule() *prefixRule {
	if e.prefixes == nil {
		return nil
	}
	return &prefixRule{slots: e.prefixSlots, fits: func(pb int) bool { return e.prefixes.fits(e.prefixBytes(pb)) }}
}

// prefixTokens is the ids of the plan's cached prefixes, each run once.
func (pl *packPlan) prefixTokens() int {
	n := 0
	for _, c := range pl.cached {
		n += pl.trie.prefixLen(c)
	}
	return n
}

// cachedPrefix is the prefix the current passes attend to.
type cachedPrefix struct {
	node  int
	pos   []int32
	kv    []*tensors.Tensor
	owned bool // not in the store: freed when done
}

// release frees the prefix's tensors unless the store holds them.
func (c *cachedPrefix) release() {
	if c.owned {
		freeAll(c.kv)
	}
	*c = cachedPrefix{}
}

// attach makes pass p attend to the prefix (none when node is 0).
func (c *cachedPrefix) attach(p *pass) *pass {
	if c.node != 0 {
		p.prefixPos, p.prefixKV = c.pos, c.kv
	}
	return p
}

// usePrefix makes node the current prefix, from the store or run now,
// and counts its ids as done.
func (e *Engine) usePrefix(c *cachedPrefix, pl *packPlan, items []item, node int, step *lm.Step) error {
	if node == c.node {
		return nil
	}
	c.release()
	if node == 0 {
		return nil
	}
	p := pl.trie.prefixLen(node)
	pb := e.prefixSlots(p)
	kv, owned, err := e.prefixKV(items[pl.trie.nodes[node].rep].inp[:p], pb)
	if err != nil {
		return fmt.Errorf("cached prefix of %d tokens: %w", p, err)
	}
	*c = cachedPrefix{node: node, pos: prefixPositions(p, pb), kv: kv, owned: owned}
	step.Done += p
	return nil
}

// prefixShapes are placeholder tensors of a cached prefix's shapes (pb
// slots), for compiling ahead.
func (e *Engine) prefixShapes(pb int) []*tensors.Tensor {
	l, k, d := e.model.CacheDims()
	dtype, _ := e.opts.computeDType()
	out := make([]*tensors.Tensor, 2*l)
	for i := range out {
		out[i] = tensors.FromShape(shapes.Make(dtype, 1, k, pb, d))
	}
	return out
}
