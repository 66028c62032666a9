// Package par splits a loop over the processors: the host-side work of
// loading a checkpoint (converting, rounding and transposing gigabytes of
// weights) that would otherwise run on one core while the others wait.
package par

import (
	"runtime"
	"sync"
)

// For calls fn(lo, hi) on contiguous ranges covering [0, n), on up to
// GOMAXPROCS goroutines at once, each range at least grain iterations
// long (fewer goroutines when n is small), and returns when every call
// has. fn must only write what its own range owns.
func For(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := min(runtime.GOMAXPROCS(0), n/max(grain, 1))
	if workers <= 1 {
		fn(0, n)
		return
	}
	step := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := step; lo < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+step, n))
	}
	fn(0, min(step, n)) // the first range on this goroutine
	wg.Wait()
}
