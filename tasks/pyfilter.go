package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
)

// Python filters of filter_list: a step whose function is a `!function`
// Filter class (built with the step's other keys as keyword arguments,
// then apply(resps, docs)), or lm-eval's custom filter with a `!function`
// filter_fn (called as filter_fn(resps, docs)). lm-eval applies a
// pipeline to all of a task's documents at once; goeval scores one
// document at a time and hands the filter that document alone, which
// gives the same result for filters that treat documents independently
// (all of lm-eval's own do).

// pyFilter is one Python filter step.
type pyFilter struct {
	f      *pyFunc
	kwargs *py.Map[any]
	fnMode bool // custom's filter_fn, not a class
	order  func() map[string][]string
}

// pyFilterStep reads a step that names Python; isPy is false for the
// others (goeval's own filters).
func (r *cfgReader) pyFilterStep(key string, m *py.Map[any]) (st pipeStep, isPy bool) {
	fn := m.Value("function")
	ref, isRef := fn.(hookRef)
	custom := fn == "custom"
	if !isRef && !custom {
		return nil, false
	}
	kw := py.NewMap[any]()
	for _, k := range m.Keys() {
		if k != "function" && (!custom || k != "filter_fn") {
			kw.Set(k, m.Value(k))
		}
	}
	var h registered
	if custom {
		h = r.hookAt(key+".filter_fn", m.Value("filter_fn"), hookFilterFn)
	} else {
		h = r.hookAt(key+".function", ref, hookFilter)
	}
	if g, ok := h.fn.(FilterHook); ok { // a Go filter_fn (humaneval's, mbpp's)
		r.onlyArgs(key, m, "filter_fn")
		return customStep(g), true
	}
	f, ok := h.fn.(*pyFunc)
	if !ok {
		return nil, true // hookAt reported why
	}
	return (&pyFilter{f: f, kwargs: kw, fnMode: custom, order: r.keys}).pipe(), true
}

// goFilters are the filters goeval has (goFilterStep).
var goFilters = map[string]bool{"take_first": true, "take_first_k": true, "majority_vote": true, "lowercase": true,
	"uppercase": true, "remove_whitespace": true, "regex": true, "map": true, "multi_choice_regex": true}

// lmevalFilterStep reads a step naming a filter of lm-eval's registry that
// goeval does not have, run by the worker when its Python has lm-eval;
// isPy is false otherwise (goFilterStep then refuses it).
func (r *cfgReader) lmevalFilterStep(key string, m *py.Map[any]) (pipeStep, bool) {
	name, ok := m.Value("function").(string)
	if !ok || goFilters[name] || r.py == nil || r.py.Available() != nil {
		return nil, false
	}
	if info, err := r.py.Info(); err != nil || !info.LMEval {
		return nil, false
	}
	f, err := resolveRegistry(r.py, key+".function", name, hookFilter)
	if err != nil {
		r.failf(key+".function", "%v", err)
		return nil, true
	}
	kw := py.NewMap[any]()
	for _, k := range m.Keys() {
		if k != "function" {
			kw.Set(k, m.Value(k))
		}
	}
	return (&pyFilter{f: f, kwargs: kw, order: r.keys}).pipe(), true
}

// pipe is the filter as a pipeline step: it gets the document's list of
// responses (one per repeat) until a take_first, the response after, as
// lm-eval hands them over.
func (p *pyFilter) pipe() pipeStep {
	return func(l respList, doc Doc) (respList, error) {
		vals := l.values()
		var in any = vals
		if l.taken {
			if len(vals) == 0 {
				return l, nil
			}
			in = vals[0]
		}
		req := py.NewMap[any]()
		req.Set("resps", []any{in})
		req.Set("docs", []any{OrderedDoc(doc, p.order())})
		req.Set("kwargs", p.kwargs)
		req.Set("fn", p.fnMode)
		out, err := p.f.call("filter", req)
		if err != nil {
			return respList{}, err
		}
		res, ok := out.([]any)
		if !ok || len(res) != 1 {
			return respList{}, fmt.Errorf("%s: gave %d results for 1 document", p.f.what(), len(res))
		}
		if l.taken {
			return respList{vals: []any{res[0]}, taken: true}, nil
		}
		switch r := res[0].(type) {
		case []any:
			return respList{vals: r}, nil
		case pyworker.Tuple:
			return respList{vals: []any(r)}, nil
		}
		return respList{}, fmt.Errorf("%s: gave %s for a document's responses, want a list of them", p.f.what(), yamlKind(res[0]))
	}
}
