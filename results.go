package goeval

import (
	"encoding/json"
	"time"

	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/tasks"
)

// Results is one evaluation's outcome.
type Results struct {
	Tasks    []*TaskResult  // in task order (groups expanded)
	Groups   []*GroupResult // bottom-up: subgroups before their parents
	Start    time.Time
	Duration time.Duration
}

// Metric is one aggregated metric under one filter, as lm-eval reports
// "<name>,<filter>" and "<name>_stderr,<filter>".
type Metric struct {
	Name, Filter   string
	Value          float64
	Stderr         float64
	StderrOK       bool // false: lm-eval writes "N/A"
	HigherIsBetter bool
	N              int // per-sample values aggregated
}

// Key is lm-eval's result key, "acc,none".
func (m Metric) Key() string { return m.Name + "," + m.Filter }

// StderrKey is lm-eval's stderr key, "acc_stderr,none".
func (m Metric) StderrKey() string { return m.Name + "_stderr," + m.Filter }

// TaskResult is one task's aggregated metrics and, with LogSamples, its rows.
type TaskResult struct {
	Name, Alias string
	OutputType  tasks.OutputType
	Version     any
	NumFewshot  int // the effective few-shot count
	// Config is the task's lm-eval config as tasks.Task.Config returns it;
	// NumFewshot and GenKwargs are the run's values that lm-eval writes
	// over it in a results file's "configs" entry (see report.FromResults).
	Config    json.RawMessage
	GenKwargs map[string]any // --gen-kwargs applied to a generate task; nil otherwise
	Metrics   []Metric       // lm-eval order: filter-major, then metric_list order
	SampleLen int            // documents evaluated (lm-eval's sample_len / n-samples effective)
	Original  int            // documents in the split when known (n-samples original), else SampleLen
	Samples   []Sample       // with Options.LogSamples: one per (filter, doc), filter-major
	// NonFinite counts the loglikelihood and loglikelihood_rolling requests
	// whose log-prob came back NaN or ±Inf (broken weights or activations),
	// out of LogProbRequests. When it is > 0, the affected documents' metric
	// values and every aggregate over them are NaN (see NonFiniteWarnings).
	NonFinite, LogProbRequests int
	// Shard is the shard's part of the task in a sharded evaluation
	// (Options.Shard); nil otherwise.
	Shard *TaskShard
	// Thinking sums the reasoning cut from the task's generations
	// (Options.Thinking); nil when none was cut.
	Thinking *ThinkingCounts
}

// Metric returns the named metric under filter.
func (t *TaskResult) Metric(name, filter string) (Metric, bool) {
	for _, m := range t.Metrics {
		if m.Name == name && m.Filter == filter {
			return m, true
		}
	}
	return Metric{}, false
}

// Sample is one samples-file row: a document under one filter.
type Sample struct {
	DocID         int
	Doc           tasks.Doc
	DocKeys       map[string][]string // Doc's column order (tasks.Instance.DocKeys)
	Target        any
	Requests      []tasks.Request
	Responses     []tasks.Response
	OutputType    tasks.OutputType
	Filter        string
	FilteredResps any
	MetricNames   []string
	Values        map[string]metrics.Value
}

// GroupResult is a group's aggregate over its leaf tasks.
type GroupResult struct {
	Name, Alias string
	Version     string
	Subtasks    []string // direct children (tasks or groups)
	Leaves      []string // leaf tasks, recursively
	Aggregate   bool     // has aggregate_metric_list (else only listed)
	Metrics     []Metric
	SampleLen   int
	NumFewshot  *int // set when every leaf agrees
}
