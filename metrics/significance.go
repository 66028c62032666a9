package metrics

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Alpha is the significance level of run comparisons: changes with
// p < Alpha are marked significant (95 %).
const Alpha = 0.05

// McNemarExact is the exact McNemar test for paired 0/1 outcomes: b docs
// right only under A, c docs right only under B. Under H0 each discordant
// doc is equally likely to go either way, so the two-sided p-value is
// min(1, 2·P(X ≤ min(b,c))) with X ~ Binomial(b+c, 1/2). b = c = 0 gives 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// log-sum-exp of log C(n,i) - n·ln 2 for i ≤ k, safe for large n.
	logs := make([]float64, k+1)
	hi := math.Inf(-1)
	for i := 0; i <= k; i++ {
		logs[i] = logChoose(n, i) - float64(n)*math.Ln2
		hi = math.Max(hi, logs[i])
	}
	sum := 0.0
	for _, l := range logs {
		sum += math.Exp(l - hi)
	}
	return math.Min(1, 2*math.Exp(hi)*sum)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// BootstrapResult is a paired bootstrap of a statistic's change.
type BootstrapResult struct {
	Delta    float64 // the statistic on the full data: stat(B) - stat(A)
	Low      float64 // 2.5th percentile of the resampled deltas
	High     float64 // 97.5th percentile
	P        float64 // two-sided p-value, see PairedBootstrap
	Iters    int
	Resample int // docs per resample (the number of paired docs)
}

// PairedBootstrap resamples the n paired docs with replacement iters times
// (a PCG stream seeded with seed, so results are reproducible) and
// evaluates delta(idx) = stat_B(idx) - stat_A(idx) on each resample. The
// confidence interval is the percentile interval at 95 %; the p-value is
// the share of resampled deltas at least as far from the observed delta as
// the observed delta is from zero (the bootstrap distribution shifted to
// the null), with the +1 correction: (count+1)/(iters+1).
func PairedBootstrap(n, iters int, seed uint64, delta func(idx []int) float64) BootstrapResult {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	obs := delta(all)
	res := BootstrapResult{Delta: obs, Iters: iters, Resample: n, P: 1, Low: obs, High: obs}
	if n == 0 || iters <= 0 {
		return res
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ds := make([]float64, iters)
	idx := make([]int, n)
	extreme := 0
	for it := range ds {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		ds[it] = delta(idx)
		if math.Abs(ds[it]-obs) >= math.Abs(obs)-1e-15*math.Abs(obs) {
			extreme++
		}
	}
	sort.Float64s(ds)
	res.Low = percentile(ds, 0.025)
	res.High = percentile(ds, 0.975)
	res.P = float64(extreme+1) / float64(iters+1)
	return res
}

// percentile is linear interpolation between closest ranks (numpy's
// default) on sorted xs.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (pos-float64(lo))*(xs[hi]-xs[lo])
}
