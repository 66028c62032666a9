package report

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// pairedTest fills ch's test fields from the two runs' samples files. It
// leaves ch.Test empty (with a Note) when either run lacks samples.
func pairedTest(base, other *Run, row *Row, ch *Change, o CompareOptions) error {
	sa, err := base.Samples(row.Task)
	if err != nil {
		return err
	}
	sb, err := other.Samples(row.Task)
	if err != nil {
		return err
	}
	if sa == nil || sb == nil {
		ch.Note = "no samples file"
		return nil
	}
	a, b, mismatched := pairValues(sa, sb, row.Metric, row.Filter)
	if mismatched > 0 {
		ch.Note = fmt.Sprintf("%d docs differ (doc_hash) and were left out", mismatched)
	}
	if len(a) == 0 {
		if ch.Note == "" {
			ch.Note = "no paired docs"
		}
		return nil
	}
	ch.N = len(a)
	agg := aggregationOf(base.Results, row.Task, row.Metric)
	if agg == metrics.AggMean && binary(a) && binary(b) {
		for i := range a {
			x, y := a[i].(float64), b[i].(float64)
			if x == 1 && y == 0 {
				ch.B++
			} else if x == 0 && y == 1 {
				ch.C++
			}
		}
		ch.Test, ch.P = "mcnemar", McNemarExact(ch.B, ch.C)
		return nil
	}
	return bootstrapChange(a, b, agg, ch, o)
}

func bootstrapChange(a, b []any, agg string, ch *Change, o CompareOptions) error {
	if _, err := metrics.Aggregate(agg, a); err != nil {
		ch.Note = "cannot resample: " + err.Error()
		return nil
	}
	bufA, bufB := make([]any, len(a)), make([]any, len(b))
	delta := func(idx []int) float64 {
		bufA, bufB = bufA[:len(idx)], bufB[:len(idx)]
		for k, i := range idx {
			bufA[k], bufB[k] = a[i], b[i]
		}
		va, _ := metrics.Aggregate(agg, bufA)
		vb, _ := metrics.Aggregate(agg, bufB)
		return vb - va
	}
	r := PairedBootstrap(len(a), o.BootstrapIters, o.Seed, delta)
	ch.Test, ch.P, ch.Low, ch.High = "bootstrap", r.P, r.Low, r.High
	return nil
}

// pairValues returns the metric's per-doc values for docs present in both
// runs under the filter (baseline order). Values are float64 or
// [2]float64 (for (loglikelihood, weight) pairs). Docs whose doc_hash
// differs between the runs are counted and left out.
func pairValues(sa, sb []Sample, metric, filter string) (a, b []any, mismatched int) {
	byDoc := map[int]*Sample{}
	for i := range sb {
		if sb[i].Filter == filter {
			byDoc[sb[i].DocID] = &sb[i]
		}
	}
	for i := range sa {
		s := &sa[i]
		if s.Filter != filter {
			continue
		}
		t, ok := byDoc[s.DocID]
		if !ok {
			continue
		}
		if s.DocHash != "" && t.DocHash != "" && s.DocHash != t.DocHash {
			mismatched++
			continue
		}
		va, okA := sampleValue(s, metric)
		vb, okB := sampleValue(t, metric)
		if okA && okB {
			a, b = append(a, va), append(b, vb)
		}
	}
	return a, b, mismatched
}

// sampleValue reads a per-doc metric value as float64 or [2]float64.
func sampleValue(s *Sample, metric string) (any, bool) {
	v, ok := s.Values.Get(metric)
	if !ok {
		return nil, false
	}
	if f, ok := py.ToFloat(v); ok {
		return f, true
	}
	if list, ok := v.([]any); ok && len(list) == 2 {
		x, ok1 := py.ToFloat(list[0])
		y, ok2 := py.ToFloat(list[1])
		return [2]float64{x, y}, ok1 && ok2
	}
	return nil, false
}

func binary(xs []any) bool {
	for _, x := range xs {
		f, ok := x.(float64)
		if !ok || (f != 0 && f != 1) {
			return false
		}
	}
	return true
}

// defaultAgg is lm-eval's default aggregation per registered metric
// (api/metrics.py); metrics not listed aggregate by mean.
var defaultAgg = map[string]string{
	"perplexity":      metrics.AggPerplexity,
	"word_perplexity": metrics.AggWeightedPerplexity,
	"byte_perplexity": metrics.AggWeightedPerplexity,
	"bits_per_byte":   metrics.AggBitsPerByte,
	"f1":              metrics.AggF1,
	"mcc":             metrics.AggMCC,
}

// aggregationOf reads the metric's aggregation from the task config's
// metric_list, falling back to lm-eval's default for the metric name.
func aggregationOf(r *Results, task, metric string) string {
	if cfg, ok := r.Configs.Get(task); ok {
		if m, ok := cfg.(*py.Map[any]); ok {
			list, _ := m.Get("metric_list")
			items, _ := list.([]any)
			for _, it := range items {
				im, ok := it.(*py.Map[any])
				if !ok {
					continue
				}
				name, _ := getString(im, "metric")
				agg, _ := getString(im, "aggregation")
				if name == metric && agg != "" && !strings.Contains(agg, "(") {
					return agg
				}
			}
		}
	}
	if a, ok := defaultAgg[metric]; ok {
		return a
	}
	return metrics.AggMean
}
