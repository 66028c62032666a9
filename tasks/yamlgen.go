package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// generation_kwargs and filter_list of a task YAML.

// generation reads generation_kwargs as TaskConfig.__post_init__ completes
// them: temperature as a float, until defaulting to [fewshot_delimiter],
// and lm-eval's greedy defaults when the key is absent.
func (r *cfgReader) generation(s *spec) {
	v, _ := r.c.get("generation_kwargs")
	if v == nil {
		if s.output == GenerateUntil {
			s.genKwargs = map[string]any{"temperature": 0.0, "do_sample": false, "max_gen_toks": 256, "until": []string{s.fewDelim}}
			s.genKeys = []string{"temperature", "do_sample", "max_gen_toks", "until"}
		}
		return
	}
	m, ok := v.(*py.Map[any])
	if !ok {
		r.failf("generation_kwargs", "want a mapping, got %s", yamlKind(v))
		return
	}
	if s.output != GenerateUntil {
		r.failf("generation_kwargs", "only generate_until tasks generate (this task is %s)", s.output)
		return
	}
	s.genKwargs = map[string]any{}
	for _, k := range m.Keys() {
		val := m.Value(k)
		switch k {
		case "temperature":
			f, ok := py.ToFloat(val)
			if !ok {
				r.failf("generation_kwargs.temperature", "want a number, got %s", yamlKind(val))
			}
			val = f
		case "until":
			u, err := untilList(val)
			if err != nil {
				r.failf("generation_kwargs.until", "%v", err)
			}
			val = u
		}
		s.genKwargs[k] = val
		s.genKeys = append(s.genKeys, k)
	}
	if _, ok := s.genKwargs["until"]; !ok {
		s.genKwargs["until"] = []string{s.fewDelim}
		s.genKeys = append(s.genKeys, "until")
	}
}

// untilList reads until: a stop string or a list of them.
func untilList(v any) (any, error) {
	if s, ok := v.(string); ok {
		return s, nil // logged as given
	}
	return yamlStrings(v, "a stop string or a list of them", false)
}

// filterStep is an element-wise filter function: it maps one response
// to a new one (yamlfilters.go applies it to each of a document's).
type filterStep func(resp string, doc Doc) (string, error)

// filterPipe is one filter_list entry: its steps over the document's
// responses (yamlfilters.go).
type filterPipe struct {
	name  string
	steps []pipeStep
}

// apply runs the pipeline over a request's answers.
func (f filterPipe) apply(resps []string, doc Doc) (respList, error) {
	l := respList{resps: resps}
	for _, st := range f.steps {
		var err error
		if l, err = st(l, doc); err != nil {
			return respList{}, err
		}
	}
	return l, nil
}

// filterList reads filter_list.
func (r *cfgReader) filterList(s *spec) {
	v, _ := r.c.get("filter_list")
	if v == nil || r.scorer == nil {
		return
	}
	l, ok := v.([]any)
	if !ok {
		r.failf("filter_list", "want a list of {name, filter} entries, got %s", yamlKind(v))
		return
	}
	if s.output != GenerateUntil {
		r.failf("filter_list", "goeval applies filters to generate_until tasks only (this task is %s)", s.output)
		return
	}
	for i, e := range l {
		key := fmt.Sprintf("filter_list[%d]", i)
		m, ok := e.(*py.Map[any])
		if !ok {
			r.failf(key, "want a mapping with name and filter, got %s", yamlKind(e))
			return
		}
		p := filterPipe{}
		p.name, _ = m.Value("name").(string)
		if p.name == "" {
			r.failf(key+".name", "a filter pipeline needs a name")
		}
		fs, ok := m.Value("filter").([]any)
		if !ok {
			r.failf(key+".filter", "want a list of {function: …} steps, got %s", yamlKind(m.Value("filter")))
			return
		}
		for j, fe := range fs {
			fm, ok := fe.(*py.Map[any])
			if !ok {
				r.failf(fmt.Sprintf("%s.filter[%d]", key, j), "want a mapping with a function key")
				return
			}
			if st := r.pipeStep(fmt.Sprintf("%s.filter[%d]", key, j), fm); st != nil {
				p.steps = append(p.steps, st)
			}
		}
		r.scorer.filters = append(r.scorer.filters, p)
		s.filters = append(s.filters, p.name)
	}
}

// goFilterStep builds one of goeval's element-wise filters.
func (r *cfgReader) goFilterStep(key string, m *py.Map[any]) filterStep {
	fn, _ := m.Value("function").(string)
	args := map[string]bool{}
	for _, k := range m.Keys() {
		if k != "function" {
			args[k] = true
		}
	}
	allow := func(names ...string) bool {
		for _, n := range names {
			delete(args, n)
		}
		for k := range args {
			r.failf(key+"."+k, "filter %s takes no argument %q", fn, k)
			return false
		}
		return true
	}
	switch fn {
	case "lowercase":
		allow()
		return func(s string, _ Doc) (string, error) { return metrics.Lowercase(s), nil }
	case "uppercase":
		allow()
		return func(s string, _ Doc) (string, error) { return metrics.Uppercase(s), nil }
	case "remove_whitespace":
		allow()
		return func(s string, _ Doc) (string, error) { return metrics.RemoveWhitespace(s), nil }
	case "regex":
		return r.regexStep(key, m, allow)
	case "map":
		return r.mapStep(key, m, allow)
	case "multi_choice_regex":
		return r.multiChoiceStep(key, m, allow)
	}
	if ref, ok := m.Value("function").(hookRef); ok {
		r.failf(key+".function", "!function %s: goeval cannot run Python filters (give --python)", ref.Name)
		return nil
	}
	r.failf(key+".function", "filter %q is not supported (goeval has take_first, take_first_k, majority_vote, custom, regex, multi_choice_regex, lowercase, uppercase, remove_whitespace, map)", fn)
	return nil
}

func (r *cfgReader) regexStep(key string, m *py.Map[any], allow func(...string) bool) filterStep {
	if !allow("regex_pattern", "group_select", "fallback") {
		return nil
	}
	pat, group, fallback := r.regexArgs(key, m)
	f, err := metrics.NewRegexFilter(pat, group, fallback)
	if err != nil {
		r.failf(key+".regex_pattern", "%v", err)
		return nil
	}
	return func(s string, _ Doc) (string, error) { return f.Apply(s), nil }
}

// regexArgs reads the arguments of lm-eval's RegexFilter (and of
// multi_choice_regex, its subclass), with its defaults.
func (r *cfgReader) regexArgs(key string, m *py.Map[any]) (pat string, group int, fallback string) {
	pat, fallback = `#### (\-?[0-9\.\,]+)`, metrics.DefaultRegexFallback
	if v, ok := m.Get("regex_pattern"); ok {
		if pat, ok = v.(string); !ok {
			r.failf(key+".regex_pattern", "want a regular expression, got %s", yamlKind(v))
		}
	}
	if v, ok := m.Get("group_select"); ok {
		if group, ok = v.(int); !ok {
			r.failf(key+".group_select", "want an int, got %s", yamlKind(v))
		}
	}
	if v, ok := m.Get("fallback"); ok {
		if fallback, ok = v.(string); !ok {
			r.failf(key+".fallback", "want a string, got %s", yamlKind(v))
		}
	}
	return pat, group, fallback
}

func (r *cfgReader) mapStep(key string, m *py.Map[any], allow func(...string) bool) filterStep {
	if !allow("mapping_dict", "default_value") {
		return nil
	}
	md, _ := m.Value("mapping_dict").(*py.Map[any])
	mapping := map[string]string{}
	if md != nil {
		for _, k := range md.Keys() {
			s, ok := md.Value(k).(string)
			if !ok {
				r.failf(key+".mapping_dict", "goeval maps strings to strings; %q maps to %s", k, yamlKind(md.Value(k)))
				return nil
			}
			mapping[k] = s
		}
	}
	def, isStr := m.Value("default_value").(string)
	if m.Value("default_value") != nil && !isStr {
		r.failf(key+".default_value", "want a string, got %s", yamlKind(m.Value("default_value")))
	}
	return func(s string, _ Doc) (string, error) {
		if v, ok := mapping[s]; ok {
			return v, nil
		}
		if !isStr {
			return "", fmt.Errorf("map: %q is not in mapping_dict and default_value is None", s)
		}
		return def, nil
	}
}
