package tasks

import (
	"github.com/goeval/goeval/internal/py"
)

// metric_list entries answered by Python: a `!function` metric, a metric
// of lm-eval's registry goeval does not compute (when the worker can
// import lm-eval), and `!function` aggregations.

// scalarAggs are the aggregations goeval computes from numbers alone,
// which it also applies to values Python computed.
var scalarAggs = map[string]bool{"mean": true, "median": true, "nanmean": true, "perplexity": true}

// pyMetricEntry reads an entry whose metric is a `!function`: lm-eval
// names the metric by the function's __name__ and calls it on each
// generation (pyscore.go).
func (r *cfgReader) pyMetricEntry(key string, s *spec, sc *yamlScorer, m *py.Map[any], ref hookRef) MetricSpec {
	f, ok := r.hookAt(key+".metric", ref, hookMetric).fn.(*pyFunc)
	if !ok {
		return MetricSpec{}
	}
	ms := MetricSpec{Name: f.metricName(), Aggregation: "mean", HigherIsBetter: true}
	r.metricAggregation(key, s, m, &ms, "mean")
	r.higherIsBetter(key, m, &ms)
	sc.pyMetrics[ms.Name], sc.pyKwargs[ms.Name] = f, metricKwargs(m)
	return ms
}

// lmevalMetricEntry reads an entry naming a metric goeval does not compute
// for the task's output type: lm-eval's registered metric of that name,
// run by the worker, when the task generates and the worker's Python has
// lm-eval (ok=false otherwise: the caller refuses the entry).
func (r *cfgReader) lmevalMetricEntry(key string, s *spec, sc *yamlScorer, m *py.Map[any], name string) (MetricSpec, bool) {
	if r.py == nil || s.output != GenerateUntil || r.py.Available() != nil {
		return MetricSpec{}, false
	}
	if info, err := r.py.Info(); err != nil || !info.LMEval {
		return MetricSpec{}, false
	}
	f, err := resolveRegistry(r.py, key+".metric", name, hookMetric)
	if err != nil {
		r.failf(key+".metric", "%v", err)
		return MetricSpec{}, true
	}
	ms := MetricSpec{Name: name, HigherIsBetter: f.higher == nil || *f.higher}
	r.metricAggregation(key, s, m, &ms, f.defAgg)
	r.higherIsBetter(key, m, &ms)
	sc.pyMetrics[name], sc.pyKwargs[name] = f, metricKwargs(m)
	return ms, true
}

// metricAggregation sets the aggregation of a metric Python computes: the
// entry's (a name or a `!function`), else def; goeval's own for the
// aggregations of numbers, else lm-eval's registered one, in Python.
func (r *cfgReader) metricAggregation(key string, s *spec, m *py.Map[any], ms *MetricSpec, def string) {
	agg := def
	if a, ok := m.Get("aggregation"); ok {
		if ref, isHook := a.(hookRef); isHook {
			r.pyAggregation(key+".aggregation", s, ms, ref)
			return
		}
		name, isStr := a.(string)
		if !isStr {
			r.failf(key+".aggregation", "want an aggregation name or a !function, got %s", yamlKind(a))
			return
		}
		agg = name
	}
	if agg == "" || scalarAggs[agg] {
		ms.Aggregation = agg
		if agg == "" {
			ms.Aggregation = "mean"
		}
		return
	}
	f, err := resolveRegistry(r.py, key+".aggregation", agg, hookAgg)
	if err != nil {
		r.failf(key+".aggregation", "%v", err)
		return
	}
	ms.Aggregation = agg
	r.ownAggregation(s, ms.Name, f)
}

// pyAggregation reads a `!function` aggregation: goeval's own when the
// function is lm-eval's registered one (the same object), else run in
// Python. Like lm-eval, goeval gives such an aggregation no stderr.
func (r *cfgReader) pyAggregation(key string, s *spec, ms *MetricSpec, ref hookRef) {
	fn := r.hookAt(key, ref, hookAgg).fn
	if g, isGo := fn.(AggregateFunc); isGo { // a Go hook answers it
		ms.Aggregation = "!function " + ref.Name
		if s.ownAgg == nil {
			s.ownAgg = map[string]AggregateFunc{}
		}
		s.ownAgg[ms.Name] = g
		return
	}
	f, ok := fn.(*pyFunc)
	if !ok {
		return
	}
	if f.lmeval != "" && aggregations[f.lmeval] {
		ms.Aggregation = f.lmeval
		return
	}
	ms.Aggregation = "!function " + ref.Name
	r.ownAggregation(s, ms.Name, f)
}

func (r *cfgReader) ownAggregation(s *spec, metric string, f *pyFunc) {
	if s.ownAgg == nil {
		s.ownAgg = map[string]AggregateFunc{}
	}
	s.ownAgg[metric] = pyAggregate(f)
}

// metricKwargs are an entry's keyword arguments for its metric function:
// every key but metric, aggregation, higher_is_better and hf_evaluate.
func metricKwargs(m *py.Map[any]) *py.Map[any] {
	kw := py.NewMap[any]()
	for _, k := range m.Keys() {
		switch k {
		case "metric", "aggregation", "higher_is_better", "hf_evaluate":
		default:
			kw.Set(k, m.Value(k))
		}
	}
	return kw
}
