package goeval

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/tasks"
)

// RunInfo is the run-level metadata of a results file.
type RunInfo struct {
	ModelName string // "model_name" (the --model path or id)
	// Config is "config" in lm-eval's key order: model, model_args,
	// batch_size, device, limit, seeds, … Its "model_args" (a *py.Map)
	// is also merged into every task config's metadata, as lm-eval does.
	Config  *py.Map[any]
	GitHash string
	Extra   map[string]any // other top-level keys (max_length, chat_template, ...)
}

// Report converts the results into lm-eval's results file and, when samples
// were logged, its samples files (task → rows).
func (r *Results) Report(info RunInfo) (*report.Results, map[string][]report.Sample) {
	out := &report.Results{ModelSource: "goeval", ModelName: info.ModelName, GitHash: info.GitHash,
		Date: float64(r.Start.UnixNano()) / 1e9, TotalEvalSeconds: strconv.FormatFloat(r.Duration.Seconds(), 'f', -1, 64)}
	meta := &taskMeta{map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}}
	for _, t := range r.Tasks {
		out.Results.Set(t.Name, taskEntry(t))
		hib := py.NewMap[any]()
		for _, m := range t.Metrics {
			hib.Set(m.Name, m.HigherIsBetter)
		}
		out.NSamples.Set(t.Name, report.NSamples{Original: t.Original, Effective: t.SampleLen})
		meta.configs[t.Name], meta.versions[t.Name], meta.shots[t.Name], meta.hib[t.Name] = withModelArgs(t.Config, info.Config), t.Version, t.NumFewshot, hib
	}
	for _, g := range r.Groups {
		e := groupEntry(g)
		out.Results.Set(g.Name, e)
		if g.Aggregate {
			out.Groups.Set(g.Name, e)
		}
		out.GroupSubtasks.Set(g.Name, g.Subtasks)
	}
	sortedMeta(out, r, meta)
	if info.Config != nil {
		for _, k := range info.Config.Keys() {
			v, _ := info.Config.Get(k)
			out.Config.Set(k, v)
		}
	}
	for _, k := range sortedKeys(info.Extra) {
		out.Extra.Set(k, info.Extra[k])
	}
	return out, r.reportSamples()
}

// taskMeta collects per-task maps that lm-eval writes sorted by name.
type taskMeta struct {
	configs, versions, shots, hib map[string]any
}

// sortedMeta writes configs, versions, n-shot and higher_is_better sorted
// by name, groups included (versions as strings, n-shot when the leaves
// agree, higher_is_better merged from the metrics).
func sortedMeta(out *report.Results, r *Results, m *taskMeta) {
	for _, g := range r.Groups {
		m.versions[g.Name] = g.Version
		if g.NumFewshot != nil {
			m.shots[g.Name] = *g.NumFewshot
		}
		hib := py.NewMap[any]()
		for _, gm := range g.Metrics {
			hib.Set(gm.Name, gm.HigherIsBetter)
		}
		m.hib[g.Name] = hib
	}
	for _, k := range sortedKeys(m.configs) {
		out.Configs.Set(k, m.configs[k])
	}
	for _, k := range sortedKeys(m.versions) {
		out.Versions.Set(k, m.versions[k])
	}
	for _, k := range sortedKeys(m.shots) {
		out.NShot.Set(k, m.shots[k])
	}
	for _, k := range sortedKeys(m.hib) {
		out.HigherIsBetter.Set(k, m.hib[k])
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func taskEntry(t *TaskResult) *py.Map[any] {
	e := py.NewMap[any]()
	e.Set("name", t.Name)
	e.Set("alias", t.Alias)
	e.Set("sample_len", t.SampleLen)
	for _, m := range t.Metrics {
		e.Set(m.Key(), m.Value)
		e.Set(m.StderrKey(), stderrValue(m))
	}
	return e
}

func groupEntry(g *GroupResult) *py.Map[any] {
	e := py.NewMap[any]()
	e.Set("alias", g.Alias)
	e.Set("name", g.Name)
	if !g.Aggregate {
		return e
	}
	e.Set("sample_len", g.SampleLen)
	counts := py.NewMap[any]()
	for _, m := range g.Metrics {
		e.Set(m.Key(), m.Value)
		e.Set(m.StderrKey(), stderrValue(m))
		counts.Set(m.Key(), m.N)
	}
	if counts.Len() > 0 {
		e.Set("sample_count", counts)
	}
	return e
}

func stderrValue(m Metric) any {
	if !m.StderrOK {
		return "N/A"
	}
	return m.Stderr
}

// reportSamples converts the logged rows to samples-file lines.
func (r *Results) reportSamples() map[string][]report.Sample {
	out := map[string][]report.Sample{}
	for _, t := range r.Tasks {
		for _, s := range t.Samples {
			out[t.Name] = append(out[t.Name], sampleLine(s))
		}
	}
	return out
}

func sampleLine(s Sample) report.Sample {
	line := report.Sample{DocID: s.DocID, Doc: orderedDoc(s.Doc, "", s.DocKeys), Target: pyStr(s.Target), Filter: s.Filter,
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
			line.Arguments = append(line.Arguments, []any{q.Context, genKwargsMap(q)})
			resps = append(resps, []any{resp.Text})
		}
	}
	line.Resps = resps
	if s.OutputType != tasks.MultipleChoice && len(s.Requests) == 1 {
		// lm-eval logs one filtered response per request: ["18"], not "18".
		line.FilteredResps = []any{s.FilteredResps}
	}
	for _, name := range s.MetricNames {
		line.Values.Set(name, sampleValue(s.Values[name]))
	}
	return line
}

// sampleValue writes a corpus pair like Python's (ll, int_count) tuple.
func sampleValue(v any) any {
	if p, ok := v.([2]float64); ok {
		if p[1] == math.Trunc(p[1]) && math.Abs(p[1]) < 1<<53 {
			return []any{p[0], int64(p[1])}
		}
		return []any{p[0], p[1]}
	}
	return v
}

// pyStr is Python's str() of a doc_to_target value.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case float64:
		return py.Repr(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	}
	return fmt.Sprint(v)
}

// genKwargsMap is a generate request's generation kwargs in lm-eval's
// logged order (Request.GenKeys, then any other keys sorted).
func genKwargsMap(q tasks.Request) *py.Map[any] {
	m := py.NewMap[any]()
	for _, k := range keyOrder(q.GenKwargs, q.GenKeys) {
		m.Set(k, q.GenKwargs[k])
	}
	return m
}

// withModelArgs returns a copy of a task config whose metadata also holds
// the run's model_args (lm-eval passes them to every task as metadata).
func withModelArgs(cfg *py.Map[any], runConfig *py.Map[any]) any {
	if cfg == nil {
		return nil
	}
	ma, _ := runConfig.Get("model_args")
	args, ok := ma.(*py.Map[any])
	if !ok || args.Len() == 0 {
		return cfg
	}
	out := py.NewMap[any]()
	for _, k := range cfg.Keys() {
		v, _ := cfg.Get(k)
		if k == "metadata" {
			meta := py.NewMap[any]()
			if old, ok := v.(*py.Map[any]); ok {
				copyMap(meta, old)
			}
			copyMap(meta, args)
			v = meta
		}
		out.Set(k, v)
	}
	return out
}

func copyMap(dst, src *py.Map[any]) {
	for _, k := range src.Keys() {
		v, _ := src.Get(k)
		dst.Set(k, v)
	}
}
