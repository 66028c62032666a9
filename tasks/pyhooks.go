package tasks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
)

// Python functions of task files, run as Python. A `!function
// module.attr` that no Go hook answers is, when the Index has a Python
// (SetPython), the attribute attr of module.py in the task file's folder,
// imported as lm-eval imports it (importlib, by path) by the Index's
// worker (internal/pyworker). The function is resolved when the task is
// built — its module imported, the attribute found, its signature checked
// against how lm-eval calls such a hook — so a missing file, package or
// attribute fails the task with one line naming the file, key and
// function before any document is read.

// pyFunc is one resolved Python function.
type pyFunc struct {
	rt     *pyworker.Runtime
	file   string // the module's path
	attr   string
	name   string // as the task file writes it (utils.process_docs)
	key    string // the task file's key naming it, for errors
	pyName string // its __name__ ("" when it has none)
	lmeval string // its name in lm-eval's registry when it is lm-eval's own object
	// registry is set for an object of lm-eval's registry ("metric",
	// "aggregation", "filter") named attr, rather than a module's.
	registry string
	// defAgg and higher are a registered metric's aggregation (its name)
	// and higher_is_better (nil when lm-eval has none).
	defAgg string
	higher *bool
}

// registryKind is the lm-eval registry a hook kind looks in.
var registryKind = map[hookKind]string{hookMetric: "metric", hookAgg: "aggregation", hookFilter: "filter"}

// pyArity is how lm-eval calls a hook of each kind: the positional
// arguments, and in words for errors (nargs < 0: not checked).
var pyArity = map[hookKind]struct {
	nargs int
	want  string
}{
	hookDocs:     {1, "one argument (the split)"},
	hookDoc:      {1, "one argument (the document)"},
	hookResults:  {2, "two arguments (the document and its results)"},
	hookMetric:   {-1, ""}, // lm-eval tries keywords, then one list
	hookAgg:      {1, "one argument (the list of per-document values)"},
	hookFilter:   {-1, ""}, // a class, built with the step's keyword arguments
	hookFilterFn: {2, "two arguments (the responses and the documents)"},
	hookSamples:  {0, "no arguments"},
	hookDataset:  {-1, ""}, // keywords: the task's metadata and dataset_kwargs
}

// pyHook resolves ref in Python for the key of the given kind; goName is
// the Go hook name that was looked for, for the message when Python is
// missing.
func (r *cfgReader) pyHook(key string, kind hookKind, ref hookRef, goName string) registered {
	if err := r.py.Available(); err != nil {
		r.failf(key, "!function %s: goeval cannot run Python (%v), and no Go function is registered as %s (give --python, write the field as a Jinja template, or register a Go hook with tasks.Index.RegisterHook)", ref.Name, err, goName)
		return registered{}
	}
	f, err := resolvePy(r.py, key, ref, kind)
	if err != nil {
		r.failf(key, "%v", err)
		return registered{}
	}
	return registered{fn: f}
}

// resolvePy imports ref's module in the worker and checks its attribute.
func resolvePy(rt *pyworker.Runtime, key string, ref hookRef, kind hookKind) (*pyFunc, error) {
	i := strings.LastIndex(ref.Name, ".")
	if i <= 0 || i == len(ref.Name)-1 {
		return nil, fmt.Errorf("!function %s: want module.function", ref.Name)
	}
	mod, attr := ref.Name[:i], ref.Name[i+1:] // lm-eval: module a.b is the file a.b.py
	f := &pyFunc{rt: rt, file: filepath.Join(ref.Dir, mod+".py"), attr: attr, name: ref.Name, key: key}
	if _, err := os.Stat(f.file); err != nil {
		return nil, fmt.Errorf("!function %s: no Go function answers it, and there is no Python module %s to run", ref.Name, f.file)
	}
	if err := f.resolve(kind); err != nil {
		return nil, fmt.Errorf("!function %s: %w", ref.Name, err)
	}
	return f, nil
}

// resolveRegistry finds lm-eval's registered object name of a kind
// (lm-eval must be importable by the worker).
func resolveRegistry(rt *pyworker.Runtime, key, name string, kind hookKind) (*pyFunc, error) {
	f := &pyFunc{rt: rt, attr: name, name: name, key: key, registry: registryKind[kind]}
	if err := f.resolve(kind); err != nil {
		return nil, fmt.Errorf("lm-eval's %s %s: %w", f.registry, name, err)
	}
	return f, nil
}

// resolve imports the function in the worker, checks how it can be
// called, and reads what the worker knows of it.
func (f *pyFunc) resolve(kind hookKind) error {
	req := py.NewMap[any]()
	req.Set("ref", f.ref())
	req.Set("kind", registryKind[kind])
	if a := pyArity[kind]; a.nargs >= 0 {
		req.Set("nargs", a.nargs)
		req.Set("want", a.want)
	}
	v, err := f.rt.Call("resolve", req)
	if err != nil {
		return err
	}
	m, _ := v.(*py.Map[any])
	f.lmeval, _ = m.Value("lmeval").(string)
	f.pyName, _ = m.Value("name").(string)
	f.defAgg, _ = m.Value("agg").(string)
	if h, ok := m.Value("higher").(bool); ok {
		f.higher = &h
	}
	return nil
}

// ref is the function's reference in the worker's requests.
func (f *pyFunc) ref() *py.Map[any] {
	m := py.NewMap[any]()
	if f.registry != "" {
		m.Set("lmeval", f.registry)
	} else {
		m.Set("file", f.file)
	}
	m.Set("attr", f.attr)
	return m
}

// call runs op on the function; an error names the key and the function
// and is bad input (the task file's code failed).
func (f *pyFunc) call(op string, fields *py.Map[any]) (any, error) {
	req := py.NewMap[any]()
	req.Set("ref", f.ref())
	if fields != nil {
		for _, k := range fields.Keys() {
			req.Set(k, fields.Value(k))
		}
	}
	v, err := f.rt.Call(op, req)
	if err != nil {
		var pe *pyworker.Error
		if errors.As(err, &pe) {
			return nil, errs.BadInputf("%s: %v", f.what(), pe)
		}
		return nil, fmt.Errorf("%s: %w", f.what(), err)
	}
	return v, nil
}

// what names the function in errors: "!function NAME", after its key
// unless the caller names the key (doc_to_* hooks).
func (f *pyFunc) what() string {
	if f.key == "" {
		return "!function " + f.name
	}
	return f.key + " !function " + f.name
}
