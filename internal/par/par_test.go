package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestForCovers: every index is visited exactly once, in ranges no
// shorter than the grain (but the last), for sizes around the splits.
func TestForCovers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct{ n, grain int }{{0, 1}, {1, 1}, {3, 1}, {7, 2}, {100, 1}, {100, 30}, {100, 1000}, {1 << 16, 4096}} {
		seen := make([]int32, c.n)
		var calls atomic.Int32
		For(c.n, c.grain, func(lo, hi int) {
			calls.Add(1)
			if hi-lo < c.grain && hi != c.n {
				t.Errorf("n=%d grain=%d: range [%d,%d) shorter than the grain", c.n, c.grain, lo, hi)
			}
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d grain=%d: index %d visited %d times", c.n, c.grain, i, s)
			}
		}
		if c.n > 0 && (calls.Load() < 1 || calls.Load() > 4) {
			t.Errorf("n=%d grain=%d: %d calls, want 1 to 4 (GOMAXPROCS)", c.n, c.grain, calls.Load())
		}
	}
}
