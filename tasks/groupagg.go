package tasks

// AggMetric is one entry of a group's aggregate_metric_list (lm-eval's
// AggMetricConfig): the metric, the filters whose values are aggregated
// (nil: every filter under which a leaf task reports the metric, sorted,
// as lm-eval discovers them when filter_list is absent), and whether each
// leaf weighs by its sample count.
type AggMetric struct {
	Metric       string
	Filters      []string
	WeightBySize bool
}

// AggregateList is what the group aggregates, entry by entry: its
// aggregate_metric_list, or for a built-in group its Metrics over every
// filter, weighted as WeightBySize says. Empty when the group does not
// aggregate.
func (g Group) AggregateList() []AggMetric {
	if !g.Aggregate {
		return nil
	}
	if g.AggMetrics != nil {
		return g.AggMetrics
	}
	out := make([]AggMetric, len(g.Metrics))
	for i, m := range g.Metrics {
		out[i] = AggMetric{Metric: m, WeightBySize: g.WeightBySize}
	}
	return out
}
