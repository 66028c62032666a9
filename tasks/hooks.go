package tasks

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// Go functions standing in for the Python functions task YAML files name
// with `!function module.name`. lm-eval imports module.py from the YAML's
// folder; goeval cannot run Python, so a hook is a Go function registered
// under "<folder>.module.name" — the folder path inside lm-eval's tasks
// directory, dots for slashes (e.g. "hellaswag.utils.process_docs",
// "super_glue.copa.utils.doc_to_text"). A YAML file resolves
// `!function utils.process_docs` against the trailing folders of its own
// path (…/hellaswag/hellaswag.yaml → "hellaswag.utils.process_docs"), so
// lm-eval's task files and copies of them in a user's folder both find the
// hook. A name no Go function answers is an error when the file loads.

// DocsHook is a process_docs hook: the processed split (it may drop,
// reorder or rewrite documents).
type DocsHook func(docs []Doc) ([]Doc, error)

// DocHook is a doc_to_text / doc_to_target / doc_to_choice hook.
type DocHook func(doc Doc) (any, error)

// SamplesHook is a fewshot_config.samples function: the few-shot
// documents.
type SamplesHook func() ([]Doc, error)

// ResultsHook is a process_results hook: per-sample metrics from the
// document and its responses (one per request, in order).
type ResultsHook func(doc Doc, resps []Response) (map[string]metrics.Value, error)

type hookKind int

const (
	hookDocs hookKind = iota
	hookDoc
	hookResults
	// Kinds only Python functions answer (pyhooks.go).
	hookMetric   // metric_list[].metric
	hookAgg      // metric_list[].aggregation
	hookFilter   // filter_list[].filter[].function: a Filter class
	hookFilterFn // filter_list[].filter[].filter_fn of the custom filter
	hookSamples  // fewshot_config.samples
	hookDataset  // custom_dataset: called with keyword arguments
)

func (k hookKind) String() string {
	return [...]string{"a process_docs hook", "a doc_to_* hook", "a process_results hook", "a metric function",
		"an aggregation", "a filter class", "a filter function", "a few-shot samples function", "a custom_dataset function"}[k]
}

// randDocsHook is a built-in process_docs that draws from lm-eval's
// global random module (lmrandom.go), given as rnd.
type randDocsHook func(docs []Doc, rnd *py.Rand) ([]Doc, error)

// builtinResults is a process_results hook answered by a built-in task's
// own scoring (all its filters), named by the task.
type builtinResults string

// registered is a hook with, for a DocsHook, the fields it appends to every
// document, in order (so samples files log documents in lm-eval's order).
type registered struct {
	fn    any
	added []string
	// withoutPython: a built-in hook that stands in for the Python
	// function only where goeval runs no Python, or its Python cannot
	// import the task file's module (it is not identical to the function
	// on every input); otherwise the task file's own function runs.
	withoutPython bool
	// pyFallback: a ResultsHook that answers ErrNeedsPython for some
	// documents, which the task file's Python function then scores
	// (when the Index has a Python).
	pyFallback bool
}

// builtinHooks are the hooks goeval's own task files answer (hooks_builtin.go),
// registered when the package initialises and never written after.
var builtinHooks = map[string]registered{}

// registerBuiltinHook adds a built-in hook.
func registerBuiltinHook(name string, fn any, added ...string) {
	builtinHooks[name] = registered{fn: hookFunc(name, fn), added: added}
}

// RegisterHook makes fn answer `!function` references to name
// ("<folder>.module.function") in the YAML tasks of ix, over a built-in
// hook of that name. fn is a DocsHook, DocHook, ResultsHook, FilterHook,
// MetricHook or SamplesHook (or a func with the same signature); for a
// DocsHook, added names the fields it appends to each document, in the
// order Python adds them. It panics on any other type.
func (ix *Index) RegisterHook(name string, fn any, added ...string) {
	r := registered{fn: hookFunc(name, fn), added: added}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.hooks[name] = r
}

// hookFunc is fn as one of the hook types.
func hookFunc(name string, fn any) any {
	switch f := fn.(type) {
	case func([]Doc) ([]Doc, error):
		return DocsHook(f)
	case func(Doc) (any, error):
		return DocHook(f)
	case func(Doc, []Response) (map[string]metrics.Value, error):
		return ResultsHook(f)
	case func([]string, Doc) ([]string, error):
		return FilterHook(f)
	case func() ([]Doc, error):
		return SamplesHook(f)
	case func([]metrics.Value) (float64, error):
		return AggregateFunc(f)
	case DocsHook, DocHook, ResultsHook, builtinResults, FilterHook, MetricHook, SamplesHook, randDocsHook, AggregateFunc:
		return fn
	}
	panic(fmt.Sprintf("tasks: hook %s has unsupported type %T", name, fn))
}

// Hooks lists the hook names ix resolves (built-in and registered), sorted.
func (ix *Index) Hooks() []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	out := make([]string, 0, len(builtinHooks)+len(ix.hooks))
	for n := range builtinHooks {
		out = append(out, n)
	}
	for n := range ix.hooks {
		if _, dup := builtinHooks[n]; !dup {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// hook is the hook registered as name: ix's own, else the built-in.
func (ix *Index) hook(name string) (registered, bool) {
	ix.mu.Lock()
	r, ok := ix.hooks[name]
	ix.mu.Unlock()
	if !ok {
		r, ok = builtinHook(name)
	}
	return r, ok
}

// hookLookup finds a hook by its registered name.
type hookLookup func(name string) (registered, bool)

// hookCandidates are the registry names a reference from a YAML in dir may
// mean, most specific first.
func hookCandidates(ref hookRef) []string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(ref.Dir)), "/")
	var out []string
	for i := 0; i < len(parts); i++ {
		if parts[i] == "" {
			continue
		}
		out = append(out, strings.Join(parts[i:], ".")+"."+ref.Name)
	}
	return append(out, ref.Name)
}

// hook resolves the !function value at key to a Go function of the kind
// the key needs; an unknown name or a wrong kind fails the file.
func (r *cfgReader) hook(key string, kind hookKind) any {
	return r.hookReg(key, kind).fn
}

func (r *cfgReader) hookReg(key string, kind hookKind) registered {
	v, _ := r.c.get(key)
	return r.hookAt(key, v, kind)
}

// hookAt resolves the !function value v, found at key (a path such as
// metric_list[0].aggregation), to a hook of the kind the key needs.
func (r *cfgReader) hookAt(key string, v any, kind hookKind) registered {
	ref, ok := v.(hookRef)
	if !ok {
		r.failf(key, "want a !function hook, got %s", yamlKind(v))
		return registered{}
	}
	lookup := r.hooks
	if lookup == nil { // a reader outside any Index: the built-in hooks
		lookup = builtinHook
	}
	cands := hookCandidates(ref)
	var fallback *registered // a withoutPython hook, for a Python that cannot run the file
	for _, c := range cands {
		reg, ok := lookup(c)
		if !ok {
			continue
		}
		var right bool
		if reg.withoutPython && r.py != nil && r.py.Available() == nil {
			if fallback == nil {
				fallback = &reg
			}
			continue
		}
		switch reg.fn.(type) {
		case DocsHook, randDocsHook:
			right = kind == hookDocs
		case DocHook:
			right = kind == hookDoc
		case ResultsHook, builtinResults:
			right = kind == hookResults
		case FilterHook:
			right = kind == hookFilterFn
		case MetricHook:
			right = kind == hookMetric
		case SamplesHook:
			right = kind == hookSamples
		case AggregateFunc:
			right = kind == hookAgg
		}
		if !right {
			r.failf(key, "!function %s: goeval's %s is not %s", ref.Name, c, kind)
			return registered{}
		}
		return reg
	}
	if r.py != nil && fallback != nil {
		if f, err := resolvePy(r.py, key, ref, kind); err == nil {
			return registered{fn: f}
		}
		return *fallback // the module does not import (e.g. math_verify missing): the Go stand-in
	}
	if r.py != nil {
		return r.pyHook(key, kind, ref, cands[max(0, len(cands)-2)])
	}
	r.failf(key, "!function %s: goeval cannot run Python, and no Go function is registered as %s (write the field as a Jinja template, or register a Go hook with tasks.Index.RegisterHook)", ref.Name, cands[max(0, len(cands)-2)])
	return registered{}
}
