package metrics

import "math"

// SubtaskStat is one leaf task's aggregated metric, as a group sees it.
type SubtaskStat struct {
	Value    float64
	Stderr   float64
	StderrOK bool // false when the task's stderr is "N/A" or missing
	Size     int  // the task's sample_len
}

// GroupAggregate is lm-eval's Group.aggregate for one metric over the
// group's leaf tasks (all of them, recursively, not its direct children):
// value Σ vᵢ·nᵢ / Σ nᵢ (nᵢ = 1 without weightBySize); stderr pooled
// (weightBySize) or the unweighted-mean formula, and "N/A" (ok false) if any
// leaf lacks a numeric stderr.
func GroupAggregate(stats []SubtaskStat, weightBySize bool) (value, stderr float64, stderrOK bool) {
	num, den := 0.0, 0
	for _, s := range stats {
		n := s.Size
		if !weightBySize {
			n = 1
		}
		num += s.Value * float64(n)
		den += n
	}
	value = num / float64(den)
	ses := make([]float64, len(stats))
	sizes := make([]int, len(stats))
	for i, s := range stats {
		if !s.StderrOK {
			return value, 0, false
		}
		ses[i], sizes[i] = s.Stderr, s.Size
	}
	if len(stats) == 0 {
		return value, 0, false
	}
	if weightBySize {
		return value, PooledSampleStderr(ses, sizes), true
	}
	return value, UnweightedMeanStderr(ses), true
}

// PooledSampleStderr is lm-eval's pooled_sample_stderr:
// sqrt( Σ(nᵢ-1)·seᵢ²·nᵢ / (Σnᵢ - k) / Σnᵢ ).
func PooledSampleStderr(ses []float64, sizes []int) float64 {
	num, total := 0.0, 0
	for i, se := range ses {
		num += float64(sizes[i]-1) * (se * se) * float64(sizes[i])
		total += sizes[i]
	}
	pooledVar := num / float64(total-len(sizes))
	return math.Sqrt(pooledVar / float64(total))
}

// UnweightedMeanStderr is lm-eval's unweighted_mean_stderr:
// sqrt(Σ seᵢ²) / k, used when weight_by_size is false.
func UnweightedMeanStderr(ses []float64) float64 {
	s := 0.0
	for _, se := range ses {
		s += se * se
	}
	return math.Sqrt(s) / float64(len(ses))
}
