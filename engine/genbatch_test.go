package engine

import "testing"

// TestLargestFitting: the CUDA choice is the largest candidate within the
// requests and the KV budget.
func TestLargestFitting(t *testing.T) {
	for _, c := range []struct{ n, rowBytes, b, want int }{
		{200, 1 << 20, 8, 64},
		{20, 1 << 20, 8, 32},    // 20 requests: up to plan.BucketPow2(20) = 32 rows
		{200, 100 << 20, 8, 16}, // 100 MiB rows: 16 fit 2 GiB
		{200, 1 << 30, 8, 8},    // none fits: the scoring batch
	} {
		if got := largestFitting(c.n, c.rowBytes, c.b); got != c.want {
			t.Errorf("largestFitting(%d, %d, %d) = %d, want %d", c.n, c.rowBytes, c.b, got, c.want)
		}
	}
}
