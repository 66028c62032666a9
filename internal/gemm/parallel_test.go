package gemm

import (
	"sync"
	"testing"
)

// TestSplitCovers: split hands every (row, column panel) of a product to
// run exactly once, for few rows (the column panels handed out in slices,
// splitPanels) and many (row panels), on 1 to 8 threads.
func TestSplitCovers(t *testing.T) {
	const mr, nr, k = 8, 32, 1 << 12
	for _, m := range []int{1, 3, 8, 9, 64, 200} {
		for _, n := range []int{32, 100, 1024, 128256} {
			for _, threads := range []int{1, 2, 3, 8} {
				np := (n + nr - 1) / nr
				var mu sync.Mutex
				seen := make([]int, m*np)
				split(mr, nr, m, n, k, threads, func(r0, r1, p0, p1 int) {
					mu.Lock()
					defer mu.Unlock()
					for r := r0; r < r1; r++ {
						for p := p0; p < p1; p++ {
							seen[r*np+p]++
						}
					}
				})
				for i, c := range seen {
					if c != 1 {
						t.Fatalf("m=%d n=%d threads=%d: row %d panel %d run %d times", m, n, threads, i/np, i%np, c)
					}
				}
			}
		}
	}
}
