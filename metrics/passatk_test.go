package metrics

import "testing"

// TestPassAtK: the estimator's values equal code_eval's
// estimate_pass_at_k (numpy, float64) bit for bit.
func TestPassAtK(t *testing.T) {
	for _, c := range []struct {
		n, c, k int
		want    float64 // code_eval's estimator(n, c, k)
	}{
		{1, 0, 1, 0.0},
		{1, 1, 1, 1.0},
		{5, 2, 1, 0.3999999999999999},
		{5, 2, 2, 0.7},
		{10, 3, 5, 0.9166666666666666},
		{64, 1, 2, 0.03125},
		{64, 7, 8, 0.6266719976288062},
		{64, 0, 64, 0.0},
		{64, 63, 16, 1.0},
		{200, 13, 100, 0.9999194971988055},
		{20, 20, 1, 1.0},
		{3, 0, 2, 0.0},
	} {
		if got := PassAtK(c.n, c.c, c.k); got != c.want {
			t.Errorf("PassAtK(%d, %d, %d) = %v, code_eval %v", c.n, c.c, c.k, got, c.want)
		}
	}
}
