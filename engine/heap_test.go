package engine

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestHeapGrowth(t *testing.T) {
	for _, c := range []struct{ live, floor, want int64 }{
		{live: 800, floor: 1000, want: 0},    // 900 < floor: the floor holds
		{live: 900, floor: 1000, want: 12},   // 1012
		{live: 1000, floor: 1000, want: 125}, // at the limit: 1.125 × live
		{live: 4000, floor: 1000, want: 3500},
	} {
		if got := heapGrowth(c.live, c.floor); got != c.want {
			t.Errorf("heapGrowth(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

// TestHeapFollowsLive: with goeval's limit below the live heap, the next
// collection raises it to 1.125 × the live heap (watchGC → followHeap),
// and once the limit's floor is back above, to the floor again.
func TestHeapFollowsLive(t *testing.T) {
	heapLimit.mu.Lock()
	base, extra, grown := heapLimit.base, heapLimit.extra, heapLimit.grown
	prev := debug.SetMemoryLimit(-1)
	heapLimit.base, heapLimit.extra, heapLimit.grown = 1<<20, 0, 0 // 1 MiB: below any test binary's live heap
	debug.SetMemoryLimit(heapLimit.limit())
	heapLimit.mu.Unlock()
	watchGC()
	defer func() {
		heapLimit.mu.Lock()
		heapLimit.base, heapLimit.extra, heapLimit.grown = base, extra, grown
		debug.SetMemoryLimit(prev)
		heapLimit.mu.Unlock()
	}()
	keep := make([]byte, 8<<20) // live during the collections
	waitLimit := func(ok func(int64) bool) int64 {
		for range 100 {
			runtime.GC()
			time.Sleep(5 * time.Millisecond) // the finalizer goroutine runs followHeap
			if l := debug.SetMemoryLimit(-1); ok(l) {
				return l
			}
		}
		t.Fatalf("limit stuck at %d", debug.SetMemoryLimit(-1))
		return 0
	}
	l := waitLimit(func(l int64) bool { return l > 9<<20 })
	runtime.KeepAlive(keep)
	if l < int64(len(keep)) {
		t.Fatalf("limit %d below the %d bytes kept live", l, len(keep))
	}
	heapLimit.mu.Lock()
	heapLimit.base = 1 << 40 // a floor far above the live heap
	heapLimit.mu.Unlock()
	waitLimit(func(l int64) bool { return l == 1<<40 })
}
