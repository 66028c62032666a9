package report

import (
	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/tasks"
)

// fromSamples converts the logged rows to samples-file lines (task → rows).
func fromSamples(r *goeval.Results) map[string][]Sample {
	out := map[string][]Sample{}
	for _, t := range r.Tasks {
		for _, s := range t.Samples {
			out[t.Name] = append(out[t.Name], sampleLine(s))
		}
	}
	return out
}

// sampleLine is one samples-file line: the doc in its column order,
// str(target), each request's arguments and responses as lm-eval nests
// them, and the metric values.
func sampleLine(s goeval.Sample) Sample {
	line := Sample{DocID: s.DocID, Doc: tasks.OrderedDoc(s.Doc, s.DocKeys), Target: py.Str(s.Target), Filter: s.Filter,
		Metrics: s.MetricNames, FilteredResps: s.FilteredResps}
	var resps [][]any
	for i, q := range s.Requests {
		var resp tasks.Response
		if i < len(s.Responses) {
			resp = s.Responses[i]
		}
		switch q.Kind {
		case tasks.ReqLoglikelihood:
			line.Arguments = append(line.Arguments, []any{q.Context, q.Continuation})
			resps = append(resps, []any{[]any{resp.LogProb, resp.IsGreedy}})
		case tasks.ReqRolling:
			line.Arguments = append(line.Arguments, []any{q.Text})
			resps = append(resps, []any{resp.LogProb})
		case tasks.ReqGenerate:
			line.Arguments = append(line.Arguments, []any{q.Context, q.LoggedGenKwargs()})
			var texts []any // one per repeat
			for _, a := range resp.All() {
				texts = append(texts, a.Text)
			}
			resps = append(resps, texts)
		}
	}
	line.Resps = resps
	addThoughts(&line, s)
	if s.OutputType != tasks.MultipleChoice && len(s.Requests) == 1 {
		// lm-eval logs one filtered response per request: ["18"], not "18".
		line.FilteredResps = []any{s.FilteredResps}
	}
	for _, name := range s.MetricNames {
		line.Values.Set(name, s.Values[name].Py())
	}
	return line
}
