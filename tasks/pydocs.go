package tasks

import (
	"fmt"
	"sort"
	"sync"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
)

// Documents through Python: process_docs once per split, doc_to_* per
// document in batches. Documents go to the worker in the dataset's column
// order (as Python dicts iterate them) and come back with theirs.

// pyProcessDocs runs a Python process_docs over the split t: the worker
// hands it a datasets.Dataset of t's rows (a list of dicts when the
// datasets package is missing) and returns the documents and columns of
// what it gives back.
// The worker's global random is put where lm-eval's is for the task (lm).
func pyProcessDocs(f *pyFunc, t *table, lm lmRandomState) error {
	docs := make([]any, len(t.Rows))
	for i, d := range t.Rows {
		docs[i] = OrderedDoc(d, t.Keys)
	}
	req := py.NewMap[any]()
	req.Set("docs", docs)
	req.Set("columns", columns(t))
	if lm.stream != nil {
		req.Set("lm_random", lm.pyState())
	}
	v, err := f.call("process_docs", req)
	if err != nil {
		return err
	}
	m, _ := v.(*py.Map[any])
	rows, _ := m.Value("docs").([]any)
	keys := map[string][]string{}
	if cols, ok := m.Value("columns").([]any); ok {
		for _, c := range cols {
			if s, ok := c.(string); ok {
				keys[""] = append(keys[""], s)
			}
		}
	}
	out := make([]Doc, len(rows))
	for i, r := range rows {
		d, ok := docFromPy(r, "", keys).(Doc)
		if !ok {
			return errs.BadInputf("%s: document %d is %T, want a dict", f.what(), i, r)
		}
		out[i] = d
	}
	if len(out) != len(t.Rows) {
		t.Src = make([]string, len(out))
		for i := range out {
			t.Src[i] = fmt.Sprintf("doc %d (after process_docs)", i)
		}
	}
	t.Rows, t.Keys = out, keys
	return nil
}

// pySamples is a Python fewshot_config.samples: called with no
// arguments, it gives the few-shot documents.
func pySamples(f *pyFunc) func() ([]Doc, error) {
	return func() ([]Doc, error) {
		v, err := f.call("call", nil)
		if err != nil {
			return nil, err
		}
		m, _ := v.(*py.Map[any])
		l, ok := m.Value("value").([]any)
		if !ok {
			return nil, errs.BadInputf("%s: returned %s, want a list of documents", f.what(), pyKind(m.Value("value")))
		}
		out := make([]Doc, len(l))
		for i, e := range l {
			d, ok := docFromPy(e, "", map[string][]string{}).(Doc)
			if !ok {
				return nil, errs.BadInputf("%s: sample %d is %s, want a dict", f.what(), i, pyKind(e))
			}
			out[i] = d
		}
		return out, nil
	}
}

// columns are the split's columns: its key order, then any key only some
// later rows have (sorted), as the datasets loaders take the union.
func columns(t *table) []string {
	out := append([]string{}, t.Keys[""]...)
	seen := map[string]bool{}
	for _, k := range out {
		seen[k] = true
	}
	var extra []string
	for _, d := range t.Rows {
		for k := range d {
			if !seen[k] {
				seen[k] = true
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// docFromPy turns a decoded Python value into document values (dicts to
// Doc, tuples to lists), recording the key order of every dict under its
// dotted path (lists looked through; the first dict seen at a path wins).
func docFromPy(v any, path string, keys map[string][]string) any {
	switch x := v.(type) {
	case *py.Map[any]:
		if _, seen := keys[path]; !seen {
			keys[path] = append([]string{}, x.Keys()...)
		}
		d := make(Doc, x.Len())
		for _, k := range x.Keys() {
			d[k] = docFromPy(x.Value(k), joinPath(path, k), keys)
		}
		return d
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = docFromPy(e, path, keys)
		}
		return out
	case pyworker.Tuple:
		return docFromPy([]any(x), path, keys)
	}
	return v
}

// pyDocHook is a Python doc_to_* function with the values it gave, by
// document (its encoding), so that Build asks for them in one batch.
type pyDocHook struct {
	f     *pyFunc
	key   string                     // the first key naming it (doc_to_text …), for batch errors
	order func() map[string][]string // the documents' key order
	mu    sync.Mutex
	cache map[string]pyDocResult
}

type pyDocResult struct {
	v   any
	err error
}

// pyDocHook is the reader's hook of f: one per function, shared by the
// task's and fewshot_config's doc_to_* keys.
func (r *cfgReader) pyDocHook(key string, f *pyFunc) *pyDocHook {
	id := f.file + "\x00" + f.attr
	if h, ok := r.pyDocs[id]; ok {
		return h
	}
	h := &pyDocHook{f: f, key: key, order: r.keys}
	r.pyDocs[id] = h
	r.pyDoc = append(r.pyDoc, h)
	return h
}

// call is the hook's value for d.
func (h *pyDocHook) call(d Doc) (any, error) {
	enc, err := pyworker.Marshal(OrderedDoc(d, h.order()))
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	r, ok := h.cache[string(enc)]
	h.mu.Unlock()
	if !ok {
		if err := h.fetch([][]byte{enc}); err != nil {
			return nil, err
		}
		h.mu.Lock()
		r = h.cache[string(enc)]
		h.mu.Unlock()
	}
	return r.v, r.err
}

// prefetch computes the values of docs in one call.
func (h *pyDocHook) prefetch(docs []Doc) error {
	var todo [][]byte
	seen := map[string]bool{}
	order := h.order()
	for _, d := range docs {
		enc, err := pyworker.Marshal(OrderedDoc(d, order))
		if err != nil {
			return err
		}
		h.mu.Lock()
		_, done := h.cache[string(enc)]
		h.mu.Unlock()
		if !done && !seen[string(enc)] {
			seen[string(enc)] = true
			todo = append(todo, enc)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return h.fetch(todo)
}

// fetch asks the worker for the values of the encoded documents; a
// document whose call raised keeps its error (it fails only if used).
func (h *pyDocHook) fetch(encs [][]byte) error {
	docs := make([]any, len(encs))
	for i, e := range encs {
		docs[i] = pyworker.Raw(e)
	}
	req := py.NewMap[any]()
	req.Set("docs", docs)
	v, err := h.f.call("doc", req)
	if err != nil {
		return err
	}
	res, _ := v.([]any)
	if len(res) != len(encs) {
		return fmt.Errorf("%s: %d values for %d documents", h.f.what(), len(res), len(encs))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cache == nil {
		h.cache = map[string]pyDocResult{}
	}
	for i, r := range res {
		m, _ := r.(*py.Map[any])
		if e, bad := m.Get("e"); bad {
			h.cache[string(encs[i])] = pyDocResult{err: errs.BadInputf("%s: %v", h.f.what(), pyworker.ErrorOf(e))}
			continue
		}
		h.cache[string(encs[i])] = pyDocResult{v: docFromPy(m.Value("v"), "", map[string][]string{})}
	}
	return nil
}

// maxPrefetch is the largest few-shot split whose documents Build has the
// Python doc_to_* hooks compute in advance (beyond it, those drawn are
// computed one by one).
const maxPrefetch = 5000

// prefetchDocs has every Python doc_to_* hook of s compute its values for
// docs in one call each.
func (s *spec) prefetchDocs(docs []Doc) error {
	for _, h := range s.pyDoc {
		if err := h.prefetch(docs); err != nil {
			return errs.BadInputf("%s: %s: %w", s.name, h.key, err)
		}
	}
	return nil
}
