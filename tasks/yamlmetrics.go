package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// metric_list of a task YAML and the per-sample scoring of
// ConfigurableTask.process_results, for the metrics goeval computes.

// metricDefaults are lm-eval's registered aggregation and higher_is_better
// of each metric goeval computes, and the output types that compute it.
var metricDefaults = map[string]struct {
	agg     string
	higher  bool
	outputs []OutputType
}{
	"acc":             {"mean", true, []OutputType{MultipleChoice, Loglikelihood}},
	"acc_norm":        {"mean", true, []OutputType{MultipleChoice}},
	"acc_bytes":       {"mean", true, []OutputType{MultipleChoice}},
	"f1":              {"f1", true, []OutputType{MultipleChoice}},
	"mcc":             {"matthews_corrcoef", true, []OutputType{MultipleChoice}},
	"exact_match":     {"mean", true, []OutputType{MultipleChoice, GenerateUntil}},
	"perplexity":      {"perplexity", false, []OutputType{Loglikelihood}},
	"word_perplexity": {"weighted_perplexity", false, []OutputType{LoglikelihoodRolling}},
	"byte_perplexity": {"weighted_perplexity", false, []OutputType{LoglikelihoodRolling}},
	"bits_per_byte":   {"bits_per_byte", false, []OutputType{LoglikelihoodRolling}},
	"bleu":            {"bleu", true, []OutputType{GenerateUntil}},
	"chrf":            {"chrf", true, []OutputType{GenerateUntil}},
	"ter":             {"ter", false, []OutputType{GenerateUntil}},
}

// defaultMetrics is lm-eval's DEFAULT_METRIC_REGISTRY.
var defaultMetrics = map[OutputType][]string{
	Loglikelihood:        {"perplexity", "acc"},
	LoglikelihoodRolling: {"word_perplexity", "byte_perplexity", "bits_per_byte"},
	MultipleChoice:       {"acc", "acc_norm"},
	GenerateUntil:        {"exact_match"},
}

// aggregations goeval's metrics.Aggregate knows.
var aggregations = map[string]bool{"mean": true, "median": true, "perplexity": true, "weighted_perplexity": true,
	"bits_per_byte": true, "f1": true, "matthews_corrcoef": true, "nanmean": true, "bypass": true,
	"bleu": true, "chrf": true, "ter": true}

// exactMatchKwargs are exact_match's keyword arguments.
var exactMatchKwargs = map[string]bool{"regexes_to_ignore": true, "ignore_case": true, "ignore_punctuation": true, "ignore_numbers": true}

// yamlScorer is what process_results needs besides the spec.
type yamlScorer struct {
	em      *metrics.ExactMatcher
	results ResultsHook
	builtin string // process_results is this built-in task's scoring
	filters []filterPipe
	hooked  []*hookedMetric // metric_list entries answered by Go MetricHooks
	// Python (pyscore.go): process_results; metric functions and their
	// keyword arguments, by metric name.
	pyResults *pyFunc
	// pyFallback is the task file's own process_results, for the
	// documents a Go hook leaves to Python (nil without a Python).
	pyFallback    *pyFunc
	pyFallbackErr error // why pyFallback is nil
	pyMetrics     map[string]*pyFunc
	pyKwargs      map[string]*py.Map[any]
}

// metrics reads metric_list (or the output type's defaults) and
// process_results.
func (r *cfgReader) metrics(s *spec) {
	sc := &yamlScorer{pyMetrics: map[string]*pyFunc{}, pyKwargs: map[string]*py.Map[any]{}}
	hooked := r.has("process_results")
	if hooked {
		reg := r.hookReg("process_results", hookResults)
		switch h := reg.fn.(type) {
		case ResultsHook:
			sc.results = h
			if reg.pyFallback {
				sc.pyFallback, sc.pyFallbackErr = r.pyFallback()
			}
		case builtinResults:
			sc.builtin = string(h)
		case *pyFunc:
			sc.pyResults = h
		}
	}
	v, _ := r.c.get("metric_list")
	if v == nil {
		for _, name := range defaultMetrics[s.output] {
			d := metricDefaults[name]
			s.metrics = append(s.metrics, MetricSpec{name, d.agg, d.higher})
		}
		sc.em, _ = metrics.NewExactMatcher(metrics.ExactMatchOptions{})
		s.score = sc.score
		r.scorer = sc
		return
	}
	list, ok := v.([]any)
	if !ok {
		r.failf("metric_list", "want a list of {metric: …} entries, got %s", yamlKind(v))
		return
	}
	for i, e := range list {
		key := fmt.Sprintf("metric_list[%d]", i)
		m, ok := e.(*py.Map[any])
		if !ok {
			r.failf(key, "want a mapping with a metric key, got %s", yamlKind(e))
			return
		}
		if ref, isHook := m.Value("metric").(hookRef); isHook && s.output == GenerateUntil && r.isGoHook(ref) {
			specs, hm := r.metricHookEntry(key, ref, m)
			s.metrics = append(s.metrics, specs...)
			if hm != nil {
				sc.hooked = append(sc.hooked, hm)
			}
			continue
		}
		ms, em := r.metricEntry(key, s, sc, m, hooked)
		s.metrics = append(s.metrics, ms)
		if em != nil {
			sc.em = em
		}
	}
	if sc.em == nil {
		sc.em, _ = metrics.NewExactMatcher(metrics.ExactMatchOptions{})
	}
	s.score = sc.score
	r.scorer = sc
}

// metricEntry reads one metric_list entry.
func (r *cfgReader) metricEntry(key string, s *spec, sc *yamlScorer, m *py.Map[any], hooked bool) (MetricSpec, *metrics.ExactMatcher) {
	out := s.output
	if ref, isHook := m.Value("metric").(hookRef); isHook && !hooked {
		return r.pyMetricEntry(key, s, sc, m, ref), nil
	}
	name, ok := m.Value("metric").(string)
	if !ok {
		r.failf(key+".metric", "want a metric name, got %s", yamlKind(m.Value("metric")))
		return MetricSpec{}, nil
	}
	d, known := metricDefaults[name]
	if !hooked && (!known || !hasOutput(d.outputs, out)) {
		if ms, ok := r.lmevalMetricEntry(key, s, sc, m, name); ok {
			return ms, nil
		}
		r.failf(key+".metric", "goeval does not compute %q for %s tasks (it computes %s)", name, out, knownMetrics(out))
		return MetricSpec{}, nil
	}
	ms := MetricSpec{Name: name, Aggregation: d.agg, HigherIsBetter: d.higher}
	if hooked && !known {
		ms.Aggregation, ms.HigherIsBetter = "mean", true
	}
	if a, ok := m.Get("aggregation"); ok {
		if ref, isHook := a.(hookRef); isHook {
			r.pyAggregation(key+".aggregation", s, &ms, ref)
			r.higherIsBetter(key, m, &ms)
			return ms, nil
		}
		agg, isStr := a.(string)
		if !isStr || !aggregations[agg] {
			r.failf(key+".aggregation", "%v is not an aggregation goeval has (mean, median, perplexity, weighted_perplexity, bits_per_byte, f1, matthews_corrcoef, nanmean, bleu, chrf, ter, bypass)", a)
		}
		ms.Aggregation = agg
	}
	r.higherIsBetter(key, m, &ms)
	var opts metrics.ExactMatchOptions
	for _, k := range m.Keys() {
		switch {
		case k == "metric" || k == "aggregation" || k == "higher_is_better":
		case k == "hf_evaluate":
			r.failf(key+".hf_evaluate", "Hugging Face evaluate metrics are not supported")
		case name == "exact_match" && out == GenerateUntil && exactMatchKwargs[k]:
			r.exactMatchKwarg(key+"."+k, k, m.Value(k), &opts)
		case name == "exact_match" && out == GenerateUntil:
			r.failf(key+"."+k, "unknown exact_match argument (it takes regexes_to_ignore, ignore_case, ignore_punctuation, ignore_numbers)")
		}
	}
	if name != "exact_match" || out != GenerateUntil {
		return ms, nil // lm-eval passes no arguments to the other metrics either
	}
	em, err := metrics.NewExactMatcher(opts)
	if err != nil {
		r.failf(key+".regexes_to_ignore", "%v", err)
	}
	return ms, em
}

// higherIsBetter reads an entry's higher_is_better.
func (r *cfgReader) higherIsBetter(key string, m *py.Map[any], ms *MetricSpec) {
	if h, ok := m.Get("higher_is_better"); ok {
		b, isBool := h.(bool)
		if !isBool {
			r.failf(key+".higher_is_better", "want true or false, got %s", yamlKind(h))
		}
		ms.HigherIsBetter = b
	}
}

func (r *cfgReader) exactMatchKwarg(key, k string, v any, o *metrics.ExactMatchOptions) {
	if k == "regexes_to_ignore" {
		res, err := yamlStrings(v, "a list of regular expressions", false)
		if err != nil {
			r.failf(key, "%v", err)
		}
		o.RegexesToIgnore = res
		return
	}
	b, ok := pyTruth(v)
	if !ok {
		r.failf(key, "want true or false, got %s", yamlKind(v))
		return
	}
	switch k {
	case "ignore_case":
		o.IgnoreCase = b
	case "ignore_punctuation":
		o.IgnorePunctuation = b
	case "ignore_numbers":
		o.IgnoreNumbers = b
	}
}

func hasOutput(l []OutputType, o OutputType) bool {
	for _, x := range l {
		if x == o {
			return true
		}
	}
	return false
}

func knownMetrics(o OutputType) string {
	var out []string
	for _, n := range sortedKeys(map[string]bool{"acc": true, "acc_norm": true, "acc_bytes": true, "f1": true, "mcc": true,
		"exact_match": true, "perplexity": true, "word_perplexity": true, "byte_perplexity": true, "bits_per_byte": true,
		"bleu": true, "chrf": true, "ter": true}) {
		if hasOutput(metricDefaults[n].outputs, o) {
			out = append(out, n)
		}
	}
	return fmt.Sprint(out)
}

// pyTruth is Python's bool(v) for the scalars a YAML flag may hold (lm-eval
// tests its metric flags with `if flag:`, so the string "false" is true).
func pyTruth(v any) (b, ok bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		return x != "", true
	case int:
		return x != 0, true
	case float64:
		return x != 0, true
	case nil:
		return false, true
	}
	return false, false
}
