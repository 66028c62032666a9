package engine

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/env"
)

// The Go heap limit on backends whose tensors live in the Go heap: about
// 1.3× the weights plus 256 MiB, raised on simplego by twice the KV caches
// generation holds (reserveHeap: there each step copies the cache). Before
// that raise (and before the limit followed the live heap) a 16-row,
// 768-slot decode of Qwen2.5-0.5B collected ~20 times a second, a fifth of
// its CPU profile. On goeval's pure-Go backend the cache is written in
// place and counts within the margin (kvcache.go). Without any limit the
// Go GC lets the heap grow to twice the live weights before collecting the
// backend's per-call temporaries.
//
// Work that needs more than that margin raises the limit while it does
// (followHeap, after every collection): a limit at or below the live heap
// frees nothing and only makes the collector run without pause. A gsm8k
// run's prefill graphs (8 prompts of 464 tokens) held the live heap ~10 %
// above the limit, and each collection also scans the tokenizer's and the
// datasets' objects: ~30 collections a second, a fifth of the run's CPU.
var heapLimit heapState

type heapState struct {
	mu    sync.Mutex
	base  int64 // the limit goeval set for the weights (0: none, e.g. GOMEMLIMIT)
	extra int64 // bytes reserved for KV caches
	grown int64 // bytes added while the live heap needs them (followHeap)
}

// limit is the limit goeval sets now (mu held).
func (h *heapState) limit() int64 { return h.base + h.extra + h.grown }

// limitHeap sets the soft Go memory limit for weightBytes of weights
// unless GOMEMLIMIT is set or a limit exists.
func limitHeap(weightBytes int64) {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	if heapLimit.base > 0 || env.GoMemLimit.Get() != "" || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return
	}
	heapLimit.base = weightBytes*13/10 + 256<<20
	debug.SetMemoryLimit(heapLimit.limit())
	watchGC()
}

// weightBytes is the memory the context's variables take, each in the
// dtype it is stored in (weight-only bfloat16: the matrices' two bytes).
func weightBytes(ctx *mlctx.Context) int64 {
	var n int64
	for v := range ctx.IterVariables() {
		n += int64(v.Shape().Memory())
	}
	return n
}

// gcSentinel is garbage whose finalizer runs once per collection (the
// pointer field keeps it out of the tiny allocator, whose blocks a
// finalizer may outlive).
type gcSentinel struct{ _ *gcSentinel }

// watchGC calls followHeap after every garbage collection from now on: a
// sentinel's finalizer runs once the collection that found it dead ends,
// and arms the next sentinel.
func watchGC() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		followHeap()
		watchGC()
	})
}

// reserveHeap raises the limit goeval set by n bytes (lowers it for n < 0);
// it changes nothing where goeval set no limit.
func reserveHeap(n int64) {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	heapLimit.extra += n
	if heapLimit.base > 0 {
		debug.SetMemoryLimit(heapLimit.limit())
	}
}

// liveHeapMetric is the heap the last collection found live.
const liveHeapMetric = "/gc/heap/live:bytes"

// followHeap runs after each collection (watchGC) and makes the limit
// max(base + extra, 1.125 × the live heap that collection found): while
// the work holds more than the weights' margin and the caches'
// reservations, the next collection comes after it allocated an eighth of
// its live heap; once it holds less, the limit is base + extra again.
func followHeap() {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	if heapLimit.base == 0 {
		return
	}
	s := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	grown := heapGrowth(int64(s[0].Value.Uint64()), heapLimit.base+heapLimit.extra)
	if grown == heapLimit.grown {
		return
	}
	heapLimit.grown = grown
	debug.SetMemoryLimit(heapLimit.limit())
}

// heapGrowth is the limit's part above floor for a live heap: what makes
// the limit 1.125 × live, or 0 when floor is above that.
func heapGrowth(live, floor int64) int64 { return max(0, live+live/8-floor) }
