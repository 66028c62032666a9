package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
	"github.com/goeval/goeval/metrics"
)

// Scoring through Python: a task file's process_results, its metric
// functions (generate_until), and its aggregations.

// scorePyResults calls a Python process_results as lm-eval does: per
// filter with the filtered response of a generate_until task, once with
// the (loglikelihood, is_greedy) tuples, or the rolling loglikelihood,
// of the other types.
func (sc *yamlScorer) scorePyResults(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	doc := OrderedDoc(inst.Doc, inst.DocKeys)
	if s.output != GenerateUntil {
		results := make([]any, len(resps))
		for i, r := range resps {
			results[i] = pyworker.Tuple{r.LogProb, r.IsGreedy}
			if s.output == LoglikelihoodRolling {
				results[i] = r.LogProb
			}
		}
		m, err := sc.pyResultsCall(s, doc, results)
		if err != nil {
			return nil, err
		}
		return map[string]SampleResult{s.Filters()[0]: {Metrics: m, FilteredResps: filteredLL(resps, s.output)}}, nil
	}
	out := map[string]SampleResult{}
	for _, p := range sc.pipes() {
		l, err := p.apply(answers(resps[0]), inst.Doc)
		if err != nil {
			return nil, fmt.Errorf("filter %s: %w", p.name, err)
		}
		v := l.filtered()
		m, err := sc.pyResultsCall(s, doc, []any{v})
		if err != nil {
			return nil, err
		}
		out[p.name] = SampleResult{Metrics: m, FilteredResps: v}
	}
	return out, nil
}

// pyResultsCall is process_results(doc, results): a dict of metric values.
func (sc *yamlScorer) pyResultsCall(s *spec, doc any, results []any) (map[string]metrics.Value, error) {
	req := py.NewMap[any]()
	req.Set("args", []any{doc, results})
	req.Set("want_logged", true)
	v, err := sc.pyResults.call("call", req)
	if err != nil {
		return nil, err
	}
	m, _ := v.(*py.Map[any])
	val, _ := m.Value("value").(*py.Map[any])
	logged, _ := m.Value("logged").(*py.Map[any])
	if val == nil || logged == nil {
		return nil, fmt.Errorf("%s: returned %s, want a dict of metric values keyed by name", sc.pyResults.what(), pyKind(m.Value("value")))
	}
	out := map[string]metrics.Value{}
	for _, ms := range s.metrics { // lm-eval aggregates the others with mean: goeval reports metric_list's
		if x, ok := val.Get(ms.Name); ok {
			out[ms.Name] = pyValue(x, logged.Value(ms.Name))
		}
	}
	return out, nil
}

// pyMetric is a generate_until metric computed by a Python function, as
// ConfigurableTask.process_results calls it: gold is doc_to_target (the
// choice it indexes when the task has choices), result the filtered
// response.
func (sc *yamlScorer) pyMetric(s *spec, f *pyFunc, gold, result any) (metrics.Value, error) {
	req := py.NewMap[any]()
	req.Set("gold", gold)
	req.Set("result", result)
	req.Set("has_choices", s.choices != nil)
	req.Set("multiple", s.multiTarget)
	req.Set("bypass", hasMetric(s.metrics, "bypass"))
	req.Set("metric", f.metricName())
	req.Set("kwargs", sc.pyKwargs[f.metricName()])
	v, err := f.call("metric", req)
	if err != nil {
		return metrics.Value{}, err
	}
	m, _ := v.(*py.Map[any])
	val, logged := m.Value("value"), m.Value("logged")
	if d, ok := val.(*py.Map[any]); ok { // a dict of metrics (as HF evaluate's): lm-eval keeps them all
		x, found := d.Get(f.metricName())
		if !found {
			return metrics.Value{}, fmt.Errorf("%s: returned a dict without the key %s (goeval takes the metric's own)", f.what(), f.metricName())
		}
		l, _ := logged.(*py.Map[any])
		return pyValue(x, l.Value(f.metricName())), nil
	}
	return pyValue(val, logged), nil
}

func hasMetric(ms []MetricSpec, name string) bool {
	for _, m := range ms {
		if m.Name == name {
			return true
		}
	}
	return false
}

// metricName is the metric's name as lm-eval keys it: the function's
// __name__ (the registry name for lm-eval's own metrics).
func (f *pyFunc) metricName() string {
	if f.lmeval != "" {
		return f.lmeval
	}
	if f.pyName != "" {
		return f.pyName
	}
	return f.attr
}

// pyAggregate is a Python aggregation: the function over the metric's
// per-document values, as Python values.
func pyAggregate(f *pyFunc) AggregateFunc {
	return func(values []metrics.Value) (float64, error) {
		items := make([]any, len(values))
		for i, v := range values {
			items[i] = pyOfValue(v)
		}
		req := py.NewMap[any]()
		req.Set("args", []any{items})
		v, err := f.call("call", req)
		if err != nil {
			return 0, err
		}
		m, _ := v.(*py.Map[any])
		x, ok := pyNumber(m.Value("value"))
		if !ok {
			return 0, fmt.Errorf("%s: returned %s, want a number", f.what(), pyKind(m.Value("value")))
		}
		return x, nil
	}
}
