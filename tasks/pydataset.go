package tasks

import (
	"fmt"
	"sort"
	"sync"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// customDataset is a task file's Python custom_dataset (RULER's generated
// documents), called as lm-eval 0.4.13 calls it (api/task.py):
// custom_dataset(**metadata, **dataset_kwargs), where metadata is the task
// file's metadata with the run's over it (lm-eval's model_args, then its
// --metadata: Index.SetMetadata) and config_source, the task file. It runs
// once, when the first split is needed; it returns a mapping of splits to
// datasets.Dataset (or lists of dicts).
type customDataset struct {
	f      *pyFunc
	meta   *py.Map[any]        // the task file's metadata
	kwargs *py.Map[any]        // dataset_kwargs (nil: none)
	source string              // config_source
	run    func() *py.Map[any] // the run's metadata (nil: none)

	mu     sync.Mutex
	done   bool
	splits map[string]*table
	err    error
}

// customDataset reads custom_dataset: a Python function (no Go hook
// builds datasets), with the task file's metadata and dataset_kwargs.
func (r *cfgReader) customDataset(s *spec) {
	h := r.hookReg("custom_dataset", hookDataset)
	f, ok := h.fn.(*pyFunc)
	if !ok {
		if h.fn != nil {
			r.failf("custom_dataset", "want a Python function")
		}
		return
	}
	c := &customDataset{f: f, meta: py.NewMap[any](), source: r.c.path}
	if md, ok := r.c.get("metadata"); ok && md != nil {
		if m, ok := md.(*py.Map[any]); ok {
			c.meta = m
		}
	}
	if kw, ok := r.c.get("dataset_kwargs"); ok && kw != nil {
		m, ok := kw.(*py.Map[any])
		if !ok {
			r.failf("dataset_kwargs", "want a mapping, got %s", yamlKind(kw))
			return
		}
		c.kwargs = m
	}
	s.custom = c
}

// arguments are the keyword arguments of the call, in lm-eval's order.
func (c *customDataset) arguments() (*py.Map[any], error) {
	kw := py.NewMap[any]()
	for _, k := range c.meta.Keys() {
		kw.Set(k, c.meta.Value(k))
	}
	if c.run != nil {
		if m := c.run(); m != nil {
			for _, k := range m.Keys() {
				kw.Set(k, pyArg(m.Value(k)))
			}
		}
	}
	kw.Set("config_source", c.source)
	if c.kwargs != nil {
		for _, k := range c.kwargs.Keys() {
			if _, dup := kw.Get(k); dup {
				return nil, errs.BadInputf("%s: dataset_kwargs.%s is also a metadata key (Python refuses the call)", c.f.what(), k)
			}
			kw.Set(k, c.kwargs.Value(k))
		}
	}
	return kw, nil
}

// pyArg is a value of the run's metadata as Python has it: JSON numbers
// (a --metadata JSON object's) as int or float, in lists and mappings too.
func pyArg(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pyArg(e)
		}
		return out
	case *py.Map[any]:
		out := py.NewMap[any]()
		for _, k := range x.Keys() {
			out.Set(k, pyArg(x.Value(k)))
		}
		return out
	}
	return normalizeJSON(v)
}

// split is one split of the generated dataset.
func (c *customDataset) split(name string) (*table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.done = true
		c.splits, c.err = c.load()
	}
	if c.err != nil {
		return nil, c.err
	}
	t, ok := c.splits[name]
	if !ok {
		have := make([]string, 0, len(c.splits))
		for k := range c.splits {
			have = append(have, k)
		}
		sort.Strings(have)
		return nil, errs.BadInputf("%s: no split %q (it made %v)", c.f.what(), name, have)
	}
	// Each caller processes its own copy of the rows.
	return &table{Rows: append([]Doc(nil), t.Rows...), Src: t.Src, Keys: t.Keys}, nil
}

// load calls the function in the worker.
func (c *customDataset) load() (map[string]*table, error) {
	kw, err := c.arguments()
	if err != nil {
		return nil, err
	}
	req := py.NewMap[any]()
	req.Set("kwargs", kw)
	v, err := c.f.call("custom_dataset", req)
	if err != nil {
		return nil, err
	}
	m, _ := v.(*py.Map[any])
	list, _ := m.Value("splits").([]any)
	out := map[string]*table{}
	for _, e := range list {
		sm, _ := e.(*py.Map[any])
		name, _ := sm.Value("name").(string)
		t, err := customTable(c.f, name, sm)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// customTable is one split the worker sent: its columns and documents.
func customTable(f *pyFunc, split string, m *py.Map[any]) (*table, error) {
	keys := map[string][]string{}
	if cols, ok := m.Value("columns").([]any); ok {
		for _, c := range cols {
			if s, ok := c.(string); ok {
				keys[""] = append(keys[""], s)
			}
		}
	}
	rows, _ := m.Value("docs").([]any)
	t := &table{Rows: make([]Doc, len(rows)), Src: make([]string, len(rows)), Keys: keys}
	for i, r := range rows {
		d, ok := docFromPy(r, "", keys).(Doc)
		if !ok {
			return nil, errs.BadInputf("%s: split %s: document %d is %s, want a dict", f.what(), split, i, pyKind(r))
		}
		t.Rows[i], t.Src[i] = d, fmt.Sprintf("%s doc %d (custom_dataset)", split, i)
	}
	return t, nil
}
