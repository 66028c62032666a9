package tasks

import (
	"time"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
	"github.com/goeval/goeval/metrics"
)

// DefaultPythonTimeout is the longest one call of a task file's Python
// function may take when SetPython is given no timeout.
const DefaultPythonTimeout = pyworker.DefaultTimeout

// SetPython makes ix run the Python functions its task files name with
// `!function` and no Go hook answers (process_docs, doc_to_*,
// process_results, metrics, aggregations, filter classes) in a worker of
// the interpreter python (a path, or a name looked up on PATH, such as
// "python3"), each call limited to timeout (0: five minutes). The worker
// starts when a task first needs it — tasks that need no Python start
// none — and Close stops it. An empty python turns Python off (as
// NewIndex has it): such task files are refused, naming their hook. Call
// it before the Index is used.
func (ix *Index) SetPython(python string, timeout time.Duration) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.py != nil {
		_ = ix.py.Close()
		ix.py = nil
	}
	if python != "" {
		ix.py = pyworker.New(python, timeout)
	}
}

// SetMetadata sets the run's metadata, lm-eval's TaskManager metadata:
// modelArgs (its --model_args) with metadata (its --metadata) over them,
// both optional; pretrained, when not "" and modelArgs names no
// pretrained, tokenizer or model, is the checkpoint (goeval's --model
// DIR). A task file's custom_dataset gets it over the file's own metadata
// as keyword arguments (RULER reads tokenizer or pretrained, and
// max_seq_lengths). Call it before the Index builds tasks.
func (ix *Index) SetMetadata(modelArgs, metadata *py.Map[any], pretrained string) {
	m := py.NewMap[any]()
	named := false
	if modelArgs != nil {
		for _, k := range modelArgs.Keys() {
			m.Set(k, modelArgs.Value(k))
			named = named || k == "pretrained" || k == "tokenizer" || k == "model"
		}
	}
	if !named && pretrained != "" {
		m.Set("pretrained", pretrained)
	}
	if metadata != nil {
		for _, k := range metadata.Keys() {
			m.Set(k, metadata.Value(k))
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.meta = m
}

// metadata is SetMetadata's (nil: none).
func (ix *Index) metadata() *py.Map[any] {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.meta
}

// withMetadata gives a task file's custom_dataset the run's metadata.
func (ix *Index) withMetadata(s *spec) *spec {
	if s != nil && s.custom != nil {
		s.custom.run = ix.metadata
	}
	return s
}

// ConfirmRunUnsafeCode records lm-eval's confirm_run_unsafe_code for ix's
// task files. Unconfirmed (NewIndex's default), a task file with
// unsafe_code: true starts no Python: its !function hooks must be Go ones
// (humaneval's and mbpp's are), and one that needs Python is refused with
// UnsafeRefusal's line when built. Options.Task.ConfirmRunUnsafeCode sets
// it on the evaluation's Index.
func (ix *Index) ConfirmRunUnsafeCode(confirmed bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.unsafeOK = confirmed
}

// pythonFor is the Python runtime for building c: none for an unconfirmed
// unsafe_code task (refused reports that).
func (ix *Index) pythonFor(c yamlConfig) (py *pyworker.Runtime, refused bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if v, _ := c.get("unsafe_code"); v == true && !ix.unsafeOK && ix.py != nil {
		return nil, true
	}
	return ix.py, false
}

// PythonStarts is how many Python worker processes ix has started (0 until
// a task needed one).
func (ix *Index) PythonStarts() int {
	if p := ix.python(); p != nil {
		return p.Starts()
	}
	return 0
}

// Close stops ix's Python worker, if one runs; tasks of ix that need
// Python fail afterwards. An Index without Python needs no Close.
func (ix *Index) Close() error {
	if p := ix.python(); p != nil {
		return p.Close()
	}
	return nil
}

func (ix *Index) python() *pyworker.Runtime {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.py
}

// AggregateFunc is a task's own aggregation of one metric's per-document
// values (a task file's Python function).
type AggregateFunc func(values []metrics.Value) (float64, error)

// Aggregator is a Task with aggregations of its own: Aggregation returns
// the function for a metric, nil for the metrics whose
// MetricSpec.Aggregation names one of metrics.Aggregate's.
type Aggregator interface {
	Aggregation(metric string) AggregateFunc
}

// Aggregation is the task file's Python aggregation of metric, if any.
func (s *spec) Aggregation(metric string) AggregateFunc { return s.ownAgg[metric] }
