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
	a, b, mismatched, nonFinite := pairValues(sa, sb, row.Metric, row.Filter)
	var notes []string
	if mismatched > 0 {
		notes = append(notes, fmt.Sprintf("%d docs differ (doc_hash) and were left out", mismatched))
	}
	if nonFinite > 0 {
		notes = append(notes, fmt.Sprintf("%d docs with NaN or ±Inf values are not comparable and were left out", nonFinite))
	}
	ch.Note = strings.Join(notes, "; ")
	if len(a) == 0 {
		if ch.Note == "" {
			ch.Note = "no paired docs"
		}
		return nil
	}
	ch.N = len(a)
	res, err := metrics.PairedTest(aggregationOf(base.Results, row.Task, row.Metric), a, b, o.BootstrapIters, o.Seed)
	if err != nil {
		ch.Note = err.Error() // the values cannot be aggregated: no test
		return nil
	}
	ch.Test, ch.P, ch.B, ch.C = res.Test, res.P, res.B, res.C
	ch.Low, ch.High = res.Low, res.High
	return nil
}

// pairValues returns the metric's per-doc values for docs present in both
// runs under the filter (baseline order). Docs whose doc_hash differs
// between the runs, and docs with a NaN or ±Inf value in either run, are
// counted and left out.
func pairValues(sa, sb []Sample, metric, filter string) (a, b []metrics.Value, mismatched, nonFinite int) {
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
		switch {
		case !okA || !okB:
		case !finiteValue(va) || !finiteValue(vb):
			nonFinite++
		default:
			a, b = append(a, va), append(b, vb)
		}
	}
	return a, b, mismatched, nonFinite
}

// finiteValue reports whether a per-doc value (number or pair) is finite.
func finiteValue(v metrics.Value) bool {
	if _, ok := v.Texts(); ok {
		return true
	}
	if p, ok := v.Pair(); ok {
		return finite(p[0]) && finite(p[1])
	}
	x, _ := v.Float()
	return finite(x)
}

// sampleValue reads a per-doc metric value (a number or a pair).
func sampleValue(s *Sample, metric string) (metrics.Value, bool) {
	v, ok := s.Values.Get(metric)
	if !ok {
		return metrics.Value{}, false
	}
	return metrics.ParseValue(v)
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
	return metrics.DefaultAggregation(metric)
}
