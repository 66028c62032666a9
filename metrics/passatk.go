package metrics

// PassAtK is the unbiased pass@k estimator of one problem with n samples
// of which c pass (Chen et al. 2021), as lm-eval's code_eval metric
// computes it in float64: 1 when n−c < k, else 1 − Π_{i=n−c+1..n} (1 − k/i),
// the product taken in i order (numpy's, bit for bit). code_eval reports
// pass@k only when every problem has n ≥ k samples; that check is the
// caller's.
func PassAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}
