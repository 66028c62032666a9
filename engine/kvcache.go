package engine

import (
	"fmt"
	"time"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
)

// KV cache layout: per layer, keys and values [B, K, S, D] on the device
// (head-major: nn.AttentionCached), where slot s of row b holds the token
// at position s of the request that row serves (slots are absolute
// positions). S is a length bucket (plan.Shapes)
// chosen per GenerateUntil call, so one graph is compiled per (B, S) for
// decode and per (P, T, B, S) for prefill.
//
//	prefill: tokens [P, T] (right-padded prompts), last [P] (index of each
//	         prompt's last token), src [B] / sel [B] (cache row b takes
//	         prefill row src[b] when sel[b]), cache 2L × [B, K, S, D]
//	         → logits [P, V] f32 at last, cache' (selected rows replaced,
//	         slots ≥ T zeroed)
//	decode:  tokens [B], positions [B], cache → logits [B, V] f32, cache'
//	greedy:  decode's inputs → argmax ids [B] int32, cache' (greedy.go)
//
// Decode writes each row's slot with DynamicUpdateSlice, in place on the
// pure-Go backend, whose cache inputs are donated (runGen); simplego has no
// DynamicUpdateSlice and writes it with a Where (models.Inputs.Cache).
// Prefill moves whole rows with Gather + Where.

// kvCache is the device-side cache of one decode batch.
type kvCache struct {
	B, S     int
	t        []*tensors.Tensor // 2L tensors: K0, V0, K1, V1, …
	reserved int64             // Go heap bytes reserved for it (heap.go)
}

// genState holds the generation graphs and counters of an Engine.
type genState struct {
	prefill, decode *graphExecs
	greedy          *graphExecs // decode to argmax ids (greedy.go); nil: not on this backend
	extend          *graphExecs // after a shared prefix (genprefix.go)
	extendInPlace   *graphExecs // the same, in place (genextend.go), made on first use
	chunk           *graphExecs // a long prompt a chunk at a time (genchunk.go), made on first use
	stats           GenStats
	base            GenStats                             // stats at the start of the current call
	autoBatch       map[int]int                          // measured decode batch by cache length (genbatch.go)
	onToken         func(req int, id int32)              // the current call's lm.TokenFunc
	onDone          func(req int, res lm.GenerateResult) // the current call's lm.DoneFunc
	// reported is, per request of the current call, the tokens reported to
	// onToken; ids maps the requests being run to the call's (generate).
	reported map[int]int
	ids      []int
	// feed is the current call's lm.FeedFunc where it takes fed requests
	// (genfeed.go), fedNext the call index of the next fed request, fedBusy
	// whether a fed request was being generated when the pass ended.
	feed    lm.FeedFunc
	fedNext int
	fedBusy bool
	// maxRows caps the cache rows after an out-of-memory back-off (0: none).
	maxRows int
	// lastB and lastS are the cache shape of the last call where it is
	// kept from call to call (stickyShape).
	lastB, lastS int
}

// GenStats are generation counters (for benchmarks and logs).
type GenStats struct {
	Prefills      int           // prefill graph runs (shared prefixes and the rest of prompts after them included)
	PromptTokens  int           // prompt tokens of the requests (each prompt whole)
	PrefillTokens int           // real prompt tokens prefilled (a shared prefix once)
	PrefillTime   time.Duration // time in prefill graphs (excluding compiles)
	DecodeSteps   int           // decode graph runs
	DecodeTokens  int           // tokens decoded by active rows
	DecodeTime    time.Duration // time in decode graphs (excluding compiles)
	Rows          int           // cache rows (the decode batch) of the last call
}

// GenStats returns the cumulative generation counters.
func (e *Engine) GenStats() GenStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gen == nil {
		return GenStats{}
	}
	return e.gen.stats
}

// genExecs returns the prefill and decode Execs, creating them once.
func (e *Engine) genExecs() (*genState, error) {
	if e.gen != nil {
		return e.gen, nil
	}
	e.gen = &genState{
		prefill: newGraphExecs(e, "prefill", prefillGraph(e.model)),
		decode:  newGraphExecs(e, "decode", decodeGraph(e.model, false)),
		extend:  newGraphExecs(e, "extend", extendGraph(e.model)),
	}
	return e.gen, nil
}

// finalize frees the compiled generation graphs.
func (s *genState) finalize() {
	if s != nil {
		s.prefill.finalize()
		s.decode.finalize()
		s.greedy.finalize()
		s.extend.finalize()
		s.extendInPlace.finalize()
		s.chunk.finalize()
	}
}

// newCache allocates a zeroed cache for b rows of s slots.
func (e *Engine) newCache(b, s int) (*kvCache, error) {
	dtype := e.prec.compute
	layers, kv, d := e.model.CacheDims()
	c := &kvCache{B: b, S: s, t: make([]*tensors.Tensor, 2*layers)}
	for i := range c.t {
		t, err := e.zeroTensor(shapes.Make(dtype, b, kv, s, d))
		if err != nil {
			c.free()
			return nil, fmt.Errorf("new %d×%d cache: %w", b, s, err)
		}
		c.t[i] = t
	}
	// On simplego a step holds the old cache and the new one: the heap limit
	// is raised by both. On goeval's pure-Go backend every graph that writes
	// the cache gets it donated and writes it in place (Decode's and
	// intoCache's DynamicUpdateSlice), so one cache is live, and it counts
	// within the weights' margin (heap.go): where it outgrows that margin
	// the limit follows the live heap. A gsm8k run at 0.5B (16 rows; with
	// prefillBudget's 2048 tokens) then peaked at 2835–2860 MiB resident
	// instead of 3221–3233, in about the same time (47.1–47.8 s against
	// 45.7–46.9 s, interleaved).
	if inGoHeap(e.backend) && e.backend.String() != gocpu.Name {
		c.reserved = 2 * int64(len(c.t)) * int64(c.t[0].Shape().Memory())
		reserveHeap(c.reserved)
	}
	return c, nil
}

// zeroTensor is a zeroed cache tensor. On goeval's pure-Go backend it is
// storage the backend owns (gocpu.NewZeros), so the first graph that gets
// it donated writes it in place: a tensor made on the host (FromShape) was
// copied to the backend and then copied again by that graph's first
// DynamicUpdateSlice, and a 32 k-slot cache of the 0.5B shape (805 MB) was
// held three times over during a long prompt's first prefill chunk.
func (e *Engine) zeroTensor(shape shapes.Shape) (*tensors.Tensor, error) {
	if e.backend.String() != gocpu.Name {
		return tensors.FromShape(shape), nil
	}
	buf, err := gocpu.NewZeros(e.backend, shape)
	if err != nil {
		return nil, err
	}
	return tensors.FromBuffer(e.backend, buf)
}

// close frees the cache and gives back its heap reservation.
func (c *kvCache) close() {
	c.free()
	reserveHeap(-c.reserved)
	c.reserved = 0
}

// free releases the cache tensors.
func (c *kvCache) free() {
	for _, t := range c.t {
		if t != nil {
			_ = t.FinalizeAll()
		}
	}
	c.t = nil
}

// prefillGraph builds the prefill graph described at the top of this file.
func prefillGraph(m models.Model) func(ctx *mlctx.Context, in []*Node) []*Node {
	return func(ctx *mlctx.Context, in []*Node) []*Node {
		defer building()()
		tokens, last, src, sel, cache := in[0], in[1], in[2], in[3], in[4:]
		g := tokens.Graph()
		p := tokens.Shape().Dim(0)
		out := m.Forward(ctx, models.Inputs{Tokens: tokens, ReturnKV: true, RowLen: AddScalar(last, 1)})
		hidden, kv := out.Hidden, out.KV // [P, T, H], L × {[P, K, T, D]}
		rowIdx := Iota(g, shapes.Make(dtypes.Int32, p), 0)
		h := Gather(hidden, Stack([]*Node{rowIdx, last}, -1)) // [P, H]
		// DecodeLogits, as in decode: both graphs then make the same
		// [V, H]-sized temporary copy of the LM head (simplego's reshape of a
		// weight), which its buffer pool reuses, instead of a second,
		// differently sized re-blocked copy per prefill (545 MB each at
		// Qwen2.5-0.5B). Same dot products, same bits.
		// logits [P, V]
		logits := ConvertDType(m.DecodeLogits(ctx, h), dtypes.Float32)
		return append([]*Node{logits}, intoCache(kv, src, sel, cache)...)
	}
}

// intoCache writes prefilled rows into the decode cache: cache row b takes
// row src[b] of every layer's keys and values where sel[b] (in its first T
// slots: the slots after them are never read before decoding writes them),
// and keeps its own elsewhere. On goeval's pure-Go backend, which gets the
// cache donated, row by row with DynamicUpdateSlice: every write is in
// place and only one row's worth is ever copied, where the whole-cache
// Gather and Where (intoCacheWhere) held two more caches' worth per layer,
// at gsm8k's 16 rows ~0.3 GB each. XLA keeps the Where: 2L ops instead of
// 8·B·L, so its compile (7–12 s per shape on a GPU) does not grow.
//
//	kv L × [P, K, T, D], src [B] int32, sel [B] bool, cache 2L × [B, K, S, D] → 2L × [B, K, S, D]
func intoCache(kv []models.KV, src, sel *Node, cache []*Node) []*Node {
	g := src.Graph()
	if g.Backend().String() != gocpu.Name {
		return intoCacheWhere(kv, src, sel, cache)
	}
	dims := cache[0].Shape().Dimensions // [B, K, S, D]
	zero := Scalar(g, dtypes.Int32, 0)
	var out []*Node
	for i, l := range kv {
		for j, x := range []*Node{l.K, l.V} { // [P, K, T, D]
			t, c := x.Shape().Dim(2), cache[2*i+j]
			for r := range dims[0] {
				row := Gather(x, Reshape(Slice(src, AxisRange(r, r+1)), 1, 1)) // [1, K, T, D]
				own := Slice(c, AxisRange(r, r+1), AxisRange(), AxisRange(0, t), AxisRange())
				take := BroadcastToDims(Reshape(Slice(sel, AxisRange(r, r+1)), 1, 1, 1, 1), 1, dims[1], t, dims[3])
				c = DynamicUpdateSlice(c, Where(take, row, own), []*Node{Scalar(g, dtypes.Int32, r), zero, zero, zero})
			}
			out = append(out, c)
		}
	}
	return out
}

// intoCacheWhere is intoCache with whole-cache ops (XLA, and simplego,
// which lacks DynamicUpdateSlice): each layer's [P, K, T, D] padded to S
// slots with zeros, gathered to [B, K, S, D] and selected row by row
// against the cache.
func intoCacheWhere(kv []models.KV, src, sel *Node, cache []*Node) []*Node {
	g := src.Graph()
	dims := cache[0].Shape().Dimensions
	b, p := dims[0], kv[0].K.Shape().Dim(0)
	selAll := BroadcastToDims(Reshape(sel, b, 1, 1, 1), dims...)
	var out []*Node
	for i, l := range kv {
		for j, x := range []*Node{l.K, l.V} {
			if t := x.Shape().Dim(2); t < dims[2] {
				x = Concatenate([]*Node{x, Zeros(g, shapes.Make(x.DType(), p, dims[1], dims[2]-t, dims[3]))}, 2)
			}
			rows := Gather(x, Reshape(src, b, 1)) // [B, K, S, D]
			out = append(out, Where(selAll, rows, cache[2*i+j]))
		}
	}
	return out
}

// cacheKV pairs a graph's flat cache inputs [K0, V0, K1, V1, …] into
// layers.
func cacheKV(flat []*Node) []models.KV {
	cache := make([]models.KV, len(flat)/2)
	for i := range cache {
		cache[i] = models.KV{K: flat[2*i], V: flat[2*i+1]}
	}
	return cache
}

// withKV appends each layer's keys and values to a graph's outputs (the
// new cache after its results), flat as cacheKV reads them.
func withKV(out []*Node, kv []models.KV) []*Node {
	for _, l := range kv {
		out = append(out, l.K, l.V)
	}
	return out
}

// decodeGraph builds the one-token decode graph: its first output is the
// logits [B, V] f32, or with greedy each row's argmax [B] int32 (greedy.go).
func decodeGraph(m models.Model, greedy bool) func(ctx *mlctx.Context, in []*Node) []*Node {
	return func(ctx *mlctx.Context, in []*Node) []*Node {
		defer building()()
		tokens, positions, flat := in[0], in[1], in[2:]
		cache := cacheKV(flat)
		step := m.Forward(ctx, models.Inputs{Tokens: tokens, Positions: positions, Cache: cache})
		logits := ConvertDType(m.DecodeLogits(ctx, step.Hidden), dtypes.Float32) // [B, V]
		if greedy {
			logits = ArgMax(logits, -1, dtypes.Int32) // [B]
		}
		return withKV([]*Node{logits}, step.KV)
	}
}

// runGen runs one generation graph: it compiles the shape on first use,
// swaps the cache for the graph's new one and returns the logits [rows·V].
// On goeval's pure-Go backend the old cache is donated, so a decode step
// writes its slots in place and the old storage is reused.
func (e *Engine) runGen(g *graphExecs, kind string, c *kvCache, args []any) ([]float32, time.Duration, error) {
	out, d, err := e.runOnCache(g, kind, c, args)
	if err != nil {
		return nil, 0, err
	}
	logits := tensors.MustCopyFlatData[float32](out)
	_ = out.FinalizeAll()
	return logits, d, nil
}

// runOnCache runs a graph of g whose inputs are args then cache c's
// tensors (donated on goeval's pure-Go backend, which writes them in
// place) and whose outputs are one tensor then the cache: c takes the new
// cache, the caller the first output (to finalize).
func (e *Engine) runOnCache(g *graphExecs, kind string, c *kvCache, args []any) (*tensors.Tensor, time.Duration, error) {
	n := len(args)
	for _, t := range c.t {
		args = append(args, t)
	}
	shape := args[0].(*tensors.Tensor).Shape()
	key := genKey(kind, shape, c.B, c.S)
	x, err := g.exec(key)
	if err != nil {
		return nil, 0, err
	}
	defer g.done(e, key)
	if err := e.compileOnce(x, key, args); err != nil {
		return nil, 0, err
	}
	if err := injectOOM(kind, shape.Dim(0), shape.Size()); err != nil {
		return nil, 0, fmt.Errorf("run %s: %w", key, err)
	}
	if e.backend.String() == gocpu.Name {
		for i, t := range c.t {
			d, err := DonateTensorBuffer(t, e.backend, 0)
			if err != nil {
				return nil, 0, fmt.Errorf("run %s: donate cache: %w", kind, err)
			}
			args[n+i] = d
		}
	}
	start := time.Now()
	outs, err := x.Exec(args...)
	if err != nil {
		return nil, 0, fmt.Errorf("run %s: %w", key, err)
	}
	d := time.Since(start)
	c.free()
	c.t = outs[1:]
	return outs[0], d, nil
}

// genKey names a generation graph's shape (Engine.seen, logs): its kind,
// its first input's shape and the cache's rows and slots.
func genKey(kind string, first shapes.Shape, b, s int) string {
	return fmt.Sprintf("%s %s B=%d S=%d", kind, first, b, s)
}
