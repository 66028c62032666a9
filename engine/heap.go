package engine

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
)

// The Go heap limit on backends whose tensors live in the Go heap: about
// 1.3× the weights plus 256 MiB, raised by the KV caches generation holds
// (reserveHeap). Without that raise a large decode batch's cache pushes
// the live heap over the limit and the collector runs back to back (a
// 16-row, 768-slot decode of Qwen2.5-0.5B collected ~20 times a second,
// a fifth of its CPU profile). Without any limit the Go GC lets the heap
// grow to twice the live weights before collecting the backend's per-call
// temporaries.
var heapLimit struct {
	mu    sync.Mutex
	base  int64 // the limit goeval set for the weights (0: none, e.g. GOMEMLIMIT)
	extra int64 // bytes reserved for KV caches
}

// limitHeap sets the soft Go memory limit for weightBytes of weights
// unless GOMEMLIMIT is set or a limit exists.
func limitHeap(weightBytes int64) {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	if heapLimit.base > 0 || os.Getenv("GOMEMLIMIT") != "" || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return
	}
	heapLimit.base = weightBytes*13/10 + 256<<20
	debug.SetMemoryLimit(heapLimit.base + heapLimit.extra)
}

// reserveHeap raises the limit goeval set by n bytes (lowers it for n < 0);
// it changes nothing where goeval set no limit.
func reserveHeap(n int64) {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	heapLimit.extra += n
	if heapLimit.base > 0 {
		debug.SetMemoryLimit(heapLimit.base + heapLimit.extra)
	}
}
