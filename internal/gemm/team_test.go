package gemm

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestRunTeam: RunTeam calls f once for each worker index and returns
// only after all have returned, whether it gets the helpers or another
// call (concurrent or nested in a job) holds them.
func TestRunTeam(t *testing.T) {
	check := func(threads int, nested bool) {
		calls := make([]atomic.Int32, threads)
		var running atomic.Int32
		RunTeam(threads, func(w int) {
			running.Add(1)
			defer running.Add(-1)
			calls[w].Add(1)
			if nested && w == 0 {
				var inner atomic.Int32
				RunTeam(3, func(int) { inner.Add(1) })
				if inner.Load() != 3 {
					t.Errorf("nested RunTeam(3): %d calls", inner.Load())
				}
			}
		})
		if r := running.Load(); r != 0 {
			t.Errorf("RunTeam(%d) returned with %d calls still running", threads, r)
		}
		for w := range calls {
			if c := calls[w].Load(); c != 1 {
				t.Errorf("RunTeam(%d): worker %d called %d times", threads, w, c)
			}
		}
	}
	for _, threads := range []int{1, 2, 5} {
		check(threads, false)
		check(threads, true)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				check(4, false)
			}
		}()
	}
	wg.Wait()
}
