package goeval

import (
	"fmt"
	"math"

	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/tasks"
)

// A model whose weights or activations are broken (NaN weights, overflowing
// activations) answers log-likelihood requests with NaN or ±Inf log-probs.
// An argmax over NaNs still picks an index, so without care such a model
// gets a plausible accuracy. goeval instead counts those requests per task
// (TaskResult.NonFinite), makes every per-document metric of an affected
// document NaN, and every aggregate over such a document NaN.

// nonFiniteDoc counts the log-likelihood and rolling responses of one
// document whose log-prob is NaN or ±Inf, and how many it has.
func nonFiniteDoc(reqs []tasks.Request, resps []tasks.Response) (bad, scored int) {
	for i, q := range reqs {
		if q.Kind != tasks.ReqLoglikelihood && q.Kind != tasks.ReqRolling || i >= len(resps) {
			continue
		}
		scored++
		if lp := resps[i].LogProb; math.IsNaN(lp) || math.IsInf(lp, 0) {
			bad++
		}
	}
	return bad, scored
}

// nanValues returns a document's metric values with every number NaN. A
// pair keeps its non-model half: the weight of an (ll, weight) pair, the
// gold of a (gold, pred) pair (f1, matthews_corrcoef).
func nanValues(vals map[string]metrics.Value, specs []tasks.MetricSpec) map[string]metrics.Value {
	out := make(map[string]metrics.Value, len(vals))
	nan := math.NaN()
	for name, v := range vals {
		p, isPair := v.Pair()
		_, isText := v.Texts()
		switch {
		case isText: // a (reference, prediction) text has no number to spoil
			out[name] = v
		case !isPair:
			out[name] = metrics.Float(nan)
		case goldPredAgg(name, specs):
			out[name] = metrics.Pair(p[0], nan)
		default:
			out[name] = metrics.Pair(nan, p[1])
		}
	}
	return out
}

// goldPredAgg reports whether metric name aggregates (gold, pred) pairs.
func goldPredAgg(name string, specs []tasks.MetricSpec) bool {
	for _, ms := range specs {
		if ms.Name == name {
			return ms.Aggregation == metrics.AggF1 || ms.Aggregation == metrics.AggMCC
		}
	}
	return false
}

// nanMetric is an aggregate over documents with non-finite log-probs: NaN
// value, and a NaN stderr where the metric has one.
func nanMetric(ms tasks.MetricSpec, filter string, n, iters int) Metric {
	agg := ms.Aggregation
	if agg == "" {
		agg = metrics.AggMean
	}
	return Metric{Name: ms.Name, Filter: filter, Value: math.NaN(), Stderr: math.NaN(),
		StderrOK: metrics.HasStderr(agg, n, iters), HigherIsBetter: ms.HigherIsBetter, N: n}
}

// NonFiniteTasks returns the tasks with at least one request whose log-prob
// was NaN or ±Inf, in task order.
func (r *Results) NonFiniteTasks() []string {
	var out []string
	for _, t := range r.Tasks {
		if t.NonFinite > 0 {
			out = append(out, t.Name)
		}
	}
	return out
}

// NonFiniteWarnings returns one warning line per task with non-finite
// log-probs, e.g. "warning: task arc_easy: 40 of 40 requests had non-finite
// log-probs (NaN/Inf logits) — …; its metrics are NaN".
func (r *Results) NonFiniteWarnings() []string {
	var out []string
	for _, t := range r.Tasks {
		if t.NonFinite == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("warning: task %s: %d of %d requests had non-finite log-probs (NaN/Inf logits) — the model's weights or activations are broken; its metrics are NaN",
			t.Name, t.NonFinite, t.LogProbRequests))
	}
	return out
}
