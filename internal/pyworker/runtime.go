package pyworker

import (
	"bytes"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/goeval/goeval/internal/py"
)

// DefaultTimeout is how long one call may take (a process_docs over a
// large split included) before the worker is stopped.
const DefaultTimeout = 5 * time.Minute

// Runtime is the Python worker of one owner (a tasks.Index): started on
// the first call, one call at a time, started again after it died or
// timed out, stopped by Close. The zero value is not usable; see New.
type Runtime struct {
	python  string
	timeout time.Duration

	mu      sync.Mutex
	proc    *process
	info    *Info
	exe     string // python resolved on PATH ("" until looked up)
	lookErr error
	starts  int
	closed  bool
}

// Info is what the worker's Python has.
type Info struct {
	Python   string // its version, e.g. "3.11.7"
	LMEval   bool   // lm_eval is importable
	Datasets bool   // datasets is importable (process_docs gets a datasets.Dataset)
}

// New returns a Runtime for the interpreter python (a path, or a name
// looked up on PATH) with a per-call timeout (DefaultTimeout when 0).
// Nothing starts until the first call.
func New(python string, timeout time.Duration) *Runtime {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Runtime{python: python, timeout: timeout}
}

// Python is the interpreter as given to New.
func (r *Runtime) Python() string { return r.python }

// Available reports whether the interpreter exists (found on PATH or as
// a file), without starting it.
func (r *Runtime) Available() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.lookLocked()
	return err
}

func (r *Runtime) lookLocked() (string, error) {
	if r.exe == "" && r.lookErr == nil {
		r.exe, r.lookErr = exec.LookPath(r.python)
		if r.lookErr != nil {
			r.lookErr = &Error{Kind: "no_python", Msg: fmt.Sprintf("no Python interpreter %s (%v)", r.python, r.lookErr)}
		}
	}
	return r.exe, r.lookErr
}

// Starts is how many worker processes the Runtime has started.
func (r *Runtime) Starts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts
}

// Info is the worker's Python (starting it if needed).
func (r *Runtime) Info() (Info, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensureLocked(); err != nil {
		return Info{}, err
	}
	return *r.info, nil
}

// Call runs op with the request's fields (a *py.Map[any], encoded with
// Encode) and returns the decoded answer. A Python-side failure is an
// *Error; so are a timeout and a worker that died (the next call starts
// a new one).
func (r *Runtime) Call(op string, fields *py.Map[any]) (any, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensureLocked(); err != nil {
		return nil, err
	}
	return r.callLocked(op, fields)
}

func (r *Runtime) ensureLocked() error {
	if r.closed {
		return &Error{Kind: "closed", Msg: "the Python worker was closed"}
	}
	if r.proc != nil {
		return nil
	}
	exe, err := r.lookLocked()
	if err != nil {
		return err
	}
	p, err := start(exe)
	if err != nil {
		return err
	}
	r.proc = p
	r.starts++
	v, err := r.callLocked("hello", nil)
	if err != nil {
		return err
	}
	m, _ := v.(*py.Map[any])
	r.info = &Info{Python: fmt.Sprint(m.Value("python")), LMEval: m.Value("lm_eval") == true, Datasets: m.Value("datasets") == true}
	return nil
}

func (r *Runtime) callLocked(op string, fields *py.Map[any]) (any, error) {
	req := py.NewMap[any]()
	req.Set("op", op)
	if fields != nil {
		for _, k := range fields.Keys() {
			req.Set(k, fields.Value(k))
		}
	}
	var b bytes.Buffer
	if err := Encode(&b, req); err != nil {
		return nil, err
	}
	line, err := r.proc.call(b.Bytes(), r.timeout)
	if err != nil {
		r.proc.close()
		r.proc = nil
		return nil, err
	}
	v, err := Decode(bytes.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("pyworker: unreadable answer from the worker: %w", err)
	}
	ans, _ := v.(*py.Map[any])
	if e, ok := ans.Get("err"); ok {
		return nil, ErrorOf(e)
	}
	ok, found := ans.Get("ok")
	if !found {
		return nil, fmt.Errorf("pyworker: an answer with neither ok nor err")
	}
	return ok, nil
}

// Close stops the worker; later calls fail.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.proc != nil {
		r.proc.close()
		r.proc = nil
	}
	return nil
}
