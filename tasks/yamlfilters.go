package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
)

// Filter pipelines over a document's responses, as lm-eval's filters see
// them: the list of a request's answers (one per repeat), which the
// selection filters (take_first, take_first_k, majority_vote) and custom
// filters work on as a whole, and the others (regex, lowercase, map, …)
// element by element.

// respList is one document's responses inside a filter pipeline: its
// answers, or after take_first the one response (no longer a list).
type respList struct {
	resps []string
	vals  []any // instead of resps once a Python filter ran: its values
	taken bool  // take_first ran: the first is the response
}

// pipeStep is one step of a filter pipeline.
type pipeStep func(l respList, doc Doc) (respList, error)

// FilterHook is a `function: custom` filter's `filter_fn: !function …`
// (lm-eval's CustomFilter), for one document: its responses (one per
// repeat, after the steps before it) to new ones.
type FilterHook func(resps []string, doc Doc) ([]string, error)

// eachStep applies an element-wise filter to every response.
func eachStep(st filterStep) pipeStep {
	return func(l respList, doc Doc) (respList, error) {
		in, err := l.strs()
		if err != nil {
			return respList{}, err
		}
		out := respList{resps: make([]string, len(in)), taken: l.taken}
		for i, s := range in {
			var err error
			if out.resps[i], err = st(s, doc); err != nil {
				return respList{}, err
			}
		}
		return out, nil
	}
}

// pipeStep builds one filter_list step: a selection or custom filter
// here, an element-wise one through filterStep.
func (r *cfgReader) pipeStep(key string, m *py.Map[any]) pipeStep {
	fn, _ := m.Value("function").(string)
	switch fn {
	case "take_first":
		r.onlyArgs(key, m)
		return takeFirst
	case "take_first_k":
		r.onlyArgs(key, m, "k")
		k, ok := m.Value("k").(int)
		if !ok || k < 0 {
			r.failf(key+".k", "want a count >= 0, got %v", m.Value("k"))
			return nil
		}
		return takeFirstK(k)
	case "majority_vote":
		r.onlyArgs(key, m)
		return majorityVote
	}
	if st, isPy := r.pyFilterStep(key, m); isPy { // custom, or a !function Filter class
		return st
	}
	if st, isPy := r.lmevalFilterStep(key, m); isPy {
		return st
	}
	if st := r.goFilterStep(key, m); st != nil {
		return eachStep(st)
	}
	return nil
}

// onlyArgs fails on any key of a filter step but function and allowed.
func (r *cfgReader) onlyArgs(key string, m *py.Map[any], allowed ...string) {
	for _, k := range m.Keys() {
		if k != "function" && !contains(allowed, k) {
			r.failf(key+"."+k, "filter %v takes no argument %q", m.Value("function"), k)
		}
	}
}

// takeFirst is lm-eval's take_first: the first response. After an
// earlier take_first it changes nothing.
func takeFirst(l respList, _ Doc) (respList, error) {
	if l.vals != nil {
		return respList{vals: l.vals[:min(1, len(l.vals))], taken: true}, nil
	}
	return respList{resps: l.resps[:min(1, len(l.resps))], taken: true}, nil
}

// strs are the responses as goeval's filters take them: strings (a
// Python filter's values must all be).
func (l respList) strs() ([]string, error) {
	if l.vals == nil {
		return l.resps, nil
	}
	out := make([]string, len(l.vals))
	for i, v := range l.vals {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("a Python filter gave %s, and goeval's filters take strings", yamlKind(v))
		}
		out[i] = s
	}
	return out, nil
}

// values are the responses as Python values.
func (l respList) values() []any {
	if l.vals != nil {
		return l.vals
	}
	out := make([]any, len(l.resps))
	for i, s := range l.resps {
		out[i] = s
	}
	return out
}

// takeFirstK is lm-eval's take_first_k: the first k responses, which
// must exist (lm-eval asserts it).
func takeFirstK(k int) pipeStep {
	return func(l respList, _ Doc) (respList, error) {
		if l.taken {
			return respList{}, fmt.Errorf("take_first_k needs the list of responses, and take_first came before it")
		}
		vals := l.values()
		if len(vals) < k {
			return respList{}, fmt.Errorf("take_first_k: need at least %d responses per document, got %d: increase the task's repeats", k, len(vals))
		}
		if l.vals != nil {
			return respList{vals: l.vals[:k]}, nil
		}
		return respList{resps: l.resps[:k]}, nil
	}
}

// majorityVote is lm-eval's majority_vote: a one-element list holding the
// most frequent response; ties go to the one seen first (Counter's
// most_common(1)).
func majorityVote(l respList, _ Doc) (respList, error) {
	if l.taken {
		return respList{}, fmt.Errorf("majority_vote needs the list of responses, and take_first came before it")
	}
	resps, err := l.strs()
	if err != nil || len(resps) == 0 {
		return respList{resps: resps}, err
	}
	counts := map[string]int{}
	for _, s := range resps {
		counts[s]++
	}
	best := resps[0]
	for _, s := range resps { // first occurrences in order: the first of the most frequent wins
		if counts[s] > counts[best] {
			best = s
		}
	}
	return respList{resps: []string{best}}, nil
}

// customStep runs a custom filter's hook on the document's responses.
func customStep(h FilterHook) pipeStep {
	return func(l respList, doc Doc) (respList, error) {
		if l.taken {
			return respList{}, fmt.Errorf("a custom filter needs the list of responses, and take_first came before it")
		}
		in, err := l.strs()
		if err != nil {
			return respList{}, err
		}
		out, err := h(append([]string(nil), in...), doc)
		return respList{resps: out}, err
	}
}

// filtered is a pipeline's result as scored and logged: after take_first
// one response (a string, or a Python filter's value), else the list
// ([]any) — lm-eval's filtered_resps, a one-element list included.
func (l respList) filtered() any {
	vals := l.values()
	if l.taken {
		if len(vals) == 0 {
			return ""
		}
		return vals[0]
	}
	return vals
}
