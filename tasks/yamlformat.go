package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
)

// How a task YAML formats documents: doc_to_text / doc_to_target /
// doc_to_choice, description, the delimiters, num_fewshot and
// fewshot_config.

// docField reads a doc_to_* key; kinds lists the literal types it may be.
func (r *cfgReader) docField(key string, lists bool) docField {
	v, ok := r.c.get(key)
	if !ok || v == nil {
		return docField{}
	}
	switch x := v.(type) {
	case hookRef:
		switch fn := r.hook(key, hookDoc).(type) {
		case DocHook:
			return docField{hook: fn}
		case *pyFunc:
			named := *fn
			named.key = "" // makeDocFuncs names the key
			return docField{hook: r.pyDocHook(key, &named).call}
		}
		return docField{}
	case string, int:
		return docField{raw: x}
	case []any, *py.Map[any]:
		if lists {
			return docField{raw: x}
		}
	}
	r.failf(key, "want a field name, a Jinja template or an int, got %s", yamlKind(v))
	return docField{}
}

// docFuncs are a task's formatting functions built from its doc_to_* fields.
type docFuncs struct {
	text    func(Doc) (string, error)
	goldIdx func(Doc) (int, error)
	target  func(Doc) (any, error)
	choices func(Doc) ([]string, error)
}

func makeDocFuncs(text, target, choice docField) docFuncs {
	has := choice.set()
	f := docFuncs{
		text: func(d Doc) (string, error) {
			v, err := text.text(d, has)
			if err != nil {
				return "", fmt.Errorf("doc_to_text: %w", err)
			}
			s, ok := v.(string)
			if !ok {
				return "", fmt.Errorf("doc_to_text gave %s, want a string", yamlKind(v))
			}
			return s, nil
		},
		goldIdx: func(d Doc) (int, error) {
			v, err := text.text(d, has)
			if err != nil {
				return 0, fmt.Errorf("doc_to_text: %w", err)
			}
			n, ok := v.(int)
			if !ok {
				return 0, fmt.Errorf("doc_to_text gave %s, want the gold context's index (an int)", yamlKind(v))
			}
			return n, nil
		},
		target: func(d Doc) (any, error) {
			v, err := target.target(d, has)
			if err != nil {
				return nil, fmt.Errorf("doc_to_target: %w", err)
			}
			return v, nil
		},
	}
	if has {
		f.choices = func(d Doc) ([]string, error) {
			c, err := choice.choices(d)
			if err != nil {
				return nil, fmt.Errorf("doc_to_choice: %w", err)
			}
			return c, nil
		}
	}
	return f
}

// formatting reads the doc_to_* keys, description, delimiters and
// num_fewshot.
func (r *cfgReader) formatting(s *spec) {
	text, target, choice := r.docField("doc_to_text", false), r.docField("doc_to_target", true), r.docField("doc_to_choice", true)
	order := func() map[string][]string { return s.keyOrder }
	text.order, target.order, choice.order = order, order, order
	if !text.set() {
		r.failf("doc_to_text", "missing: a task needs doc_to_text (a field name or a Jinja template)")
	}
	if !target.set() {
		r.failf("doc_to_target", "missing: a task needs doc_to_target (a field name, a Jinja template or an int)")
	}
	if s.output == MultipleChoice && !choice.set() {
		r.failf("doc_to_choice", "missing: a multiple_choice task needs doc_to_choice")
	}
	f := makeDocFuncs(text, target, choice)
	s.text, s.goldIdx, s.target, s.choices = f.text, f.goldIdx, f.target, f.choices
	s.prepare = func(s *spec, first Doc) error {
		v, err := text.text(first, choice.set())
		_, isInt := v.(int)
		s.multiInput = err == nil && isInt && choice.set()
		tgt, err := target.target(first, choice.set())
		_, isList := tgt.([]any)
		s.multiTarget = err == nil && isList
		return nil
	}
	if desc := r.str("description"); desc != "" {
		s.description = func(d Doc) (string, error) { return resolveField(desc, d, s.keyOrder) }
	}
	s.genPrefix = r.str("gen_prefix")
	s.targetDelim = r.strDefault("target_delimiter", " ")
	s.emptyTargetDelim = s.targetDelim == ""
	s.fewDelim = r.strDefault("fewshot_delimiter", "\n\n")
	if v, ok := r.c.get("num_fewshot"); ok && v != nil {
		n, ok := v.(int)
		if !ok || n < 0 {
			r.failf("num_fewshot", "want a count >= 0, got %v", v)
		}
		s.numFewshot, s.fixedZero = n, n == 0
	}
}

// fewshotKeys are FewshotConfig's fields.
var fewshotKeys = map[string]bool{"sampler": true, "split": true, "process_docs": true, "fewshot_indices": true,
	"samples": true, "doc_to_text": true, "doc_to_choice": true, "doc_to_target": true, "gen_prefix": true,
	"fewshot_delimiter": true, "target_delimiter": true}

// fewshotCfg reads fewshot_config: the sampler, its split or fixed samples,
// and how few-shot documents are formatted.
func (r *cfgReader) fewshotCfg(s *spec) {
	v, ok := r.c.get("fewshot_config")
	if !ok || v == nil {
		return
	}
	m, ok := v.(*py.Map[any])
	if !ok {
		r.failf("fewshot_config", "want a mapping, got %s", yamlKind(v))
		return
	}
	sub := &cfgReader{c: yamlConfig{m: m, path: r.c.path}, hooks: r.hooks, py: r.py, keys: r.keys, pyDocs: r.pyDocs}
	for _, k := range m.Keys() {
		if !fewshotKeys[k] {
			r.failf("fewshot_config."+k, "unknown few-shot key%s", didYouMean(closest(k, sortedKeys(fewshotKeys))))
		}
	}
	for _, k := range []string{"process_docs", "fewshot_indices"} {
		if sub.has(k) {
			r.failf("fewshot_config."+k, "not supported")
		}
	}
	switch smp := sub.strDefault("sampler", "default"); smp {
	case "default":
	case "first_n":
		s.firstN = true
	default:
		r.failf("fewshot_config.sampler", "%q is not supported (default or first_n)", smp)
	}
	if _, ok := m.Get("split"); ok {
		s.fewshotSplit = sub.str("split")
	}
	if ref, ok := m.Value("samples").(hookRef); ok {
		switch f := sub.hookAt("fewshot_config.samples", ref, hookSamples).fn.(type) {
		case SamplesHook: // a Go hook (mbpp's): the pool, read now
			docs, err := f()
			if err != nil {
				r.failf("fewshot_config.samples", "%v", err)
			}
			s.samples = docs
		case *pyFunc:
			s.samplesFn = pySamples(f)
		}
	} else if sub.has("samples") {
		s.samples = r.samples(m.Value("samples"))
	}
	r.fewshotFormat(s, sub)
	r.pyDoc = append(r.pyDoc, sub.pyDoc...)
	if sub.err != nil && r.err == nil {
		r.err = sub.err
	}
}

// fewshotFormat sets s.fewshot when fewshot_config overrides a doc_to_*
// key or a delimiter (each falls back to the task's own).
func (r *cfgReader) fewshotFormat(s *spec, sub *cfgReader) {
	over := false
	for _, k := range []string{"doc_to_text", "doc_to_target", "doc_to_choice", "fewshot_delimiter", "target_delimiter", "gen_prefix"} {
		if sub.has(k) {
			over = true
		}
	}
	if !over {
		return
	}
	pick := func(key string, lists bool) docField {
		f := r.docField(key, lists)
		if sub.has(key) {
			f = sub.docField(key, lists)
		}
		f.order = func() map[string][]string { return s.keyOrder }
		return f
	}
	f := makeDocFuncs(pick("doc_to_text", false), pick("doc_to_target", true), pick("doc_to_choice", true))
	s.fewshot = &fewshotFmt{text: f.text, goldIdx: f.goldIdx, target: f.target, choices: f.choices,
		targetDelim: s.targetDelim, fewDelim: s.fewDelim, genPrefix: s.genPrefix}
	if _, ok := sub.c.get("gen_prefix"); ok {
		s.fewshot.genPrefix = sub.str("gen_prefix")
	}
	if sub.has("target_delimiter") {
		s.fewshot.targetDelim = sub.str("target_delimiter")
	}
	if sub.has("fewshot_delimiter") {
		s.fewshot.fewDelim = sub.str("fewshot_delimiter")
	}
}

// samples reads fewshot_config.samples: a list of documents.
func (r *cfgReader) samples(v any) []Doc {
	l, ok := v.([]any)
	if !ok {
		r.failf("fewshot_config.samples", "want a list of documents, got %s", yamlKind(v))
		return nil
	}
	out := make([]Doc, 0, len(l))
	for i, e := range l {
		m, ok := e.(*py.Map[any])
		if !ok {
			r.failf("fewshot_config.samples", "item %d is %s, want a mapping of fields", i, yamlKind(e))
			return nil
		}
		out = append(out, yamlDoc(m).(Doc))
	}
	return out
}

// yamlDoc converts YAML values into document values: mappings to Doc, ints
// to int64 (as datasets give them).
func yamlDoc(v any) any {
	switch x := v.(type) {
	case *py.Map[any]:
		d := Doc{}
		for _, k := range x.Keys() {
			d[k] = yamlDoc(x.Value(k))
		}
		return d
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = yamlDoc(e)
		}
		return out
	case int:
		return int64(x)
	}
	return v
}
