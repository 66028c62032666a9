package tasks

import (
	"context"
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// MetricHook answers a metric_list entry's `metric: !function …` (a Python
// metric function: humaneval's pass_at_k, mbpp's pass_at_1). lm-eval calls
// it per document as fn(references=[gold], predictions=[filtered], **kw),
// kw being the entry's other keys (k: [1], …); a dict it returns gives one
// metric per key, a number one metric named after the function.
type MetricHook struct {
	// Names are the metric names the entry yields for its keyword
	// arguments (pass_at_k with k: [1, 10]: pass@1, pass@10).
	Names func(kwargs map[string]any) ([]string, error)
	// Score is one document's values by name, from its gold (doc_to_target)
	// and filtered response (a string, or a list of them when the filters
	// keep the repeats' list). A name left out has no value for the
	// document (pass@k with fewer than k answers). code runs generated
	// programs; nil unless the task has unsafe_code: true.
	Score func(ctx context.Context, gold any, pred any, kwargs map[string]any, code CodeRunner) (map[string]metrics.Value, error)
}

// hookedMetric is one metric_list entry answered by a MetricHook.
type hookedMetric struct {
	fn     string // the function's name as written
	hook   MetricHook
	kwargs map[string]any
	names  []string
}

// unsafeCode reads unsafe_code (lm-eval tests it with `is not False`).
func (r *cfgReader) unsafeCode(s *spec) {
	v, ok := r.c.get("unsafe_code")
	if !ok || v == nil || v == false {
		return
	}
	if v != true {
		r.failf("unsafe_code", "want true or false, got %v", v)
		return
	}
	s.unsafe = true
}

// metricHookEntry reads a metric_list entry whose metric is a !function:
// its metric specs (one per name the hook yields, each with the entry's
// aggregation and higher_is_better, as lm-eval propagates them).
func (r *cfgReader) metricHookEntry(key string, ref hookRef, m *py.Map[any]) ([]MetricSpec, *hookedMetric) {
	sub := &cfgReader{c: yamlConfig{m: m, path: r.c.path}, hooks: r.hooks}
	h, ok := sub.hook("metric", hookMetric).(MetricHook)
	if sub.err != nil {
		r.failf(key+".metric", "%v", sub.err)
		return nil, nil
	}
	if !ok {
		return nil, nil
	}
	hm := &hookedMetric{fn: ref.Name, hook: h, kwargs: map[string]any{}}
	agg, higher := "mean", true
	for _, k := range m.Keys() {
		switch k {
		case "metric":
		case "aggregation":
			a, isStr := m.Value(k).(string)
			if !isStr || !aggregations[a] {
				r.failf(key+".aggregation", "%v is not an aggregation goeval has", m.Value(k))
			}
			agg = a
		case "higher_is_better":
			b, isBool := m.Value(k).(bool)
			if !isBool {
				r.failf(key+".higher_is_better", "want true or false, got %s", yamlKind(m.Value(k)))
			}
			higher = b
		case "hf_evaluate":
			r.failf(key+".hf_evaluate", "Hugging Face evaluate metrics are not supported")
		default:
			hm.kwargs[k] = yamlDoc(m.Value(k))
		}
	}
	names, err := h.Names(hm.kwargs)
	if err != nil {
		r.failf(key, "!function %s: %v", ref.Name, err)
		return nil, nil
	}
	hm.names = names
	out := make([]MetricSpec, len(names))
	for i, n := range names {
		out[i] = MetricSpec{Name: n, Aggregation: agg, HigherIsBetter: higher}
	}
	return out, hm
}

// score adds the entry's values for one document to m.
func (h *hookedMetric) score(m map[string]metrics.Value, gold, pred any, code CodeRunner) error {
	vals, err := h.hook.Score(context.Background(), gold, pred, h.kwargs, code)
	if err != nil {
		return fmt.Errorf("metric %s: %w", h.fn, err)
	}
	for _, n := range h.names {
		if v, ok := vals[n]; ok {
			m[n] = v
		}
	}
	return nil
}

// isGoHook reports whether ref names a registered Go hook: one of a
// metric_list entry answers it through MetricHook (humaneval's and mbpp's
// code_eval, inside the sandbox), where other functions go to Python.
func (r *cfgReader) isGoHook(ref hookRef) bool {
	lookup := r.hooks
	if lookup == nil {
		lookup = builtinHook
	}
	for _, c := range hookCandidates(ref) {
		if _, ok := lookup(c); ok {
			return true
		}
	}
	return false
}
