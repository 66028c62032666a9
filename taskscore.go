package goeval

import (
	"fmt"

	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/tasks"
)

// scoreTask runs Process on every instance and aggregates each
// (metric, filter) as lm-eval's _compute_task_aggregations does.
func scoreTask(r *taskRun, opts Options) (*TaskResult, error) {
	t := r.task
	tr := &TaskResult{Name: t.Name(), Alias: t.Alias(), OutputType: t.OutputType(), Version: t.Version(),
		NumFewshot: t.NumFewshot(opts.Task), Config: t.Config()}
	if len(opts.Task.GenKwargs) > 0 && t.OutputType() == tasks.GenerateUntil {
		tr.GenKwargs = opts.Task.GenKwargs
	}
	tr.Thinking = thinkingCounts(r.resps)
	filters := t.Filters()
	raw := map[string][]metrics.Value{} // "metric,filter" → values in doc order
	perDoc := make([]map[string]tasks.SampleResult, len(r.insts))
	brokenDoc := make([]bool, len(r.insts)) // a log-prob is NaN or ±Inf (nonfinite.go)
	for i := range r.insts {
		res, err := t.Process(&r.insts[i], r.resps[i])
		if err != nil {
			return nil, fmt.Errorf("task %s doc %d: %w", t.Name(), r.insts[i].DocID, err)
		}
		bad, scored := nonFiniteDoc(r.insts[i].Requests, r.resps[i])
		tr.NonFinite += bad
		tr.LogProbRequests += scored
		if brokenDoc[i] = bad > 0; brokenDoc[i] {
			for f, sr := range res {
				sr.Metrics = nanValues(sr.Metrics, t.Metrics())
				res[f] = sr
			}
		}
		perDoc[i] = res
	}
	broken := map[string]bool{} // "metric,filter" aggregates a broken document
	for _, f := range filters {
		for i, inst := range r.insts {
			sr, ok := perDoc[i][f]
			if !ok {
				continue
			}
			var names []string
			for _, ms := range t.Metrics() {
				if v, ok := sr.Metrics[ms.Name]; ok {
					raw[ms.Name+","+f] = append(raw[ms.Name+","+f], v)
					broken[ms.Name+","+f] = broken[ms.Name+","+f] || brokenDoc[i]
					names = append(names, ms.Name)
				}
			}
			if opts.LogSamples {
				tr.Samples = append(tr.Samples, Sample{DocID: inst.DocID, Doc: inst.Doc, DocKeys: inst.DocKeys, Target: inst.Target,
					Requests: inst.Requests, Responses: r.resps[i], OutputType: t.OutputType(), Filter: f,
					FilteredResps: sr.FilteredResps, MetricNames: names, Values: sr.Metrics})
			}
		}
	}
	for _, f := range filters {
		for _, ms := range t.Metrics() {
			vals, ok := raw[ms.Name+","+f]
			if !ok {
				continue
			}
			if broken[ms.Name+","+f] {
				tr.Metrics = append(tr.Metrics, nanMetric(ms, f, len(vals), opts.BootstrapIters))
				tr.SampleLen = max(tr.SampleLen, len(vals))
				continue
			}
			m, err := aggregateMetric(ms, f, vals, opts.BootstrapIters, ownAggregation(t, ms.Name))
			if err != nil {
				return nil, fmt.Errorf("task %s: %w", t.Name(), err)
			}
			tr.Metrics = append(tr.Metrics, m)
			tr.SampleLen = max(tr.SampleLen, len(vals))
		}
	}
	tr.Original = tr.SampleLen
	if len(r.insts) > 0 && r.insts[0].SplitDocs > 0 {
		tr.Original = r.insts[0].SplitDocs // n-samples "original": the split before --limit
	}
	return tr, nil
}

// ownAggregation is the task's own aggregation of a metric (a task
// file's Python function), nil for those metrics.Aggregate names.
func ownAggregation(t tasks.Task, metric string) tasks.AggregateFunc {
	if a, ok := t.(tasks.Aggregator); ok {
		return a.Aggregation(metric)
	}
	return nil
}

func aggregateMetric(ms tasks.MetricSpec, filter string, vals []metrics.Value, iters int, own tasks.AggregateFunc) (Metric, error) {
	if own != nil { // lm-eval has no stderr for a task's own aggregation function
		v, err := own(vals)
		if err != nil {
			return Metric{}, fmt.Errorf("metric %s,%s: %w", ms.Name, filter, err)
		}
		return Metric{Name: ms.Name, Filter: filter, Value: v, HigherIsBetter: ms.HigherIsBetter, N: len(vals)}, nil
	}
	agg := ms.Aggregation
	if agg == "" {
		agg = metrics.AggMean
	}
	v, err := metrics.Aggregate(agg, vals)
	if err != nil {
		return Metric{}, fmt.Errorf("metric %s,%s: %w", ms.Name, filter, err)
	}
	switch ms.Name {
	case "bleu", "chrf", "chrf++", "ter": // lm-eval caps these bootstraps at 100 resamples
		iters = min(iters, 100)
	}
	se, ok, err := metrics.Stderr(agg, vals, iters)
	if err != nil {
		return Metric{}, fmt.Errorf("metric %s,%s stderr: %w", ms.Name, filter, err)
	}
	return Metric{Name: ms.Name, Filter: filter, Value: v, Stderr: se, StderrOK: ok,
		HigherIsBetter: ms.HigherIsBetter, N: len(vals)}, nil
}
