package judge

import (
	"slices"

	"github.com/goeval/goeval/metrics"
)

// bootstrapN resamples prompts this many times for the 95 % intervals.
const bootstrapN = 2000

// PairSummary is one candidate against the baseline.
type PairSummary struct {
	ModelA, ModelB     string
	Prompts            int     // prompts judged
	Wins, Ties, Losses int     // A's, with position-inconsistent pairs as ties
	Unreadable         int     // pairs with a judgement that had no verdict
	WinRate            float64 // (wins + ties/2) / readable pairs
	Low, High          float64 // its 95 % bootstrap interval (over prompts)
	Consistency        float64 // readable pairs whose two orders agreed
	FailureRate        float64 // judgements without a verdict / all judgements
}

// SummarizePairs aggregates records per candidate (seeded bootstrap).
func SummarizePairs(recs []PairRecord, seed uint64) []PairSummary {
	var order []string
	by := map[string][]PairRecord{}
	for _, r := range recs {
		if _, ok := by[r.ModelA]; !ok {
			order = append(order, r.ModelA)
		}
		by[r.ModelA] = append(by[r.ModelA], r)
	}
	var out []PairSummary
	for _, a := range order {
		rs := by[a]
		s := PairSummary{ModelA: a, ModelB: rs[0].ModelB, Prompts: len(rs)}
		var points []float64 // per readable pair: 1 win, ½ tie, 0 loss
		consistent, failed := 0, 0
		for _, r := range rs {
			failed += btoi(r.VerdictAB == "") + btoi(r.VerdictBA == "")
			switch r.Winner {
			case "A":
				s.Wins++
				points = append(points, 1)
			case "B":
				s.Losses++
				points = append(points, 0)
			case "tie":
				s.Ties++
				points = append(points, 0.5)
			default:
				s.Unreadable++
				continue
			}
			consistent += btoi(r.Consistent)
		}
		s.FailureRate = float64(failed) / float64(2*len(rs))
		if len(points) > 0 {
			s.WinRate = metrics.Mean(points)
			s.Consistency = float64(consistent) / float64(len(points))
			s.Low, s.High = bootstrapMean(points, seed)
		}
		out = append(out, s)
	}
	return out
}

// ScoreSummary is one model's grades, and its difference from the first
// model's on the prompts both were graded on.
type ScoreSummary struct {
	Model                   string
	Graded, Unreadable      int
	Mean, Low, High         float64
	Diff, DiffLow, DiffHigh float64 // mean(score − baseline's score), paired
	Paired                  int     // prompts in the difference
}

// SummarizeScores aggregates single-answer grades (models in first-seen
// order; the first is the baseline of the differences).
func SummarizeScores(recs []ScoreRecord, seed uint64) []ScoreSummary {
	var order []string
	by := map[string]map[string]float64{}
	var out []ScoreSummary
	idx := map[string]int{}
	for _, r := range recs {
		if _, ok := by[r.Model]; !ok {
			order, by[r.Model], idx[r.Model] = append(order, r.Model), map[string]float64{}, len(out)
			out = append(out, ScoreSummary{Model: r.Model})
		}
		s := &out[idx[r.Model]]
		if r.Score == nil {
			s.Unreadable++
			continue
		}
		s.Graded++
		by[r.Model][r.PromptID] = *r.Score
	}
	base := by[order[0]]
	for i, m := range order {
		var xs, diffs []float64
		for id, v := range by[m] {
			xs = append(xs, v)
			if b, ok := base[id]; ok && i > 0 {
				diffs = append(diffs, v-b)
			}
		}
		slices.Sort(xs) // map order must not change the bootstrap
		slices.Sort(diffs)
		if len(xs) > 0 {
			out[i].Mean = metrics.Mean(xs)
			out[i].Low, out[i].High = bootstrapMean(xs, seed)
		}
		if len(diffs) > 0 {
			out[i].Paired, out[i].Diff = len(diffs), metrics.Mean(diffs)
			out[i].DiffLow, out[i].DiffHigh = bootstrapMean(diffs, seed)
		}
	}
	return out
}

// bootstrapMean is the 95 % percentile interval of the mean of xs,
// resampled with replacement bootstrapN times (metrics.PairedBootstrap,
// the seeded resampler of goeval compare, on one sample).
func bootstrapMean(xs []float64, seed uint64) (lo, hi float64) {
	r := metrics.PairedBootstrap(len(xs), bootstrapN, seed, func(idx []int) float64 {
		sum := 0.0
		for _, i := range idx {
			sum += xs[i]
		}
		return sum / float64(len(idx))
	})
	return r.Low, r.High
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
