// Package tasks holds goeval's built-in evaluation tasks, matching
// lm-evaluation-harness v0.4.x: dataset loading from local files (parquet,
// jsonl, Hugging Face repo snapshots and hub cache), document processing,
// prompt assembly with few-shot examples sampled exactly as lm-eval does,
// request construction and per-sample scoring.
//
// tasks never imports engine or GoMLX: it emits its own plain Request values,
// and the evaluator (the root package) converts them to engine calls.
package tasks

import (
	"encoding/json"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/metrics"
)

// Doc is one dataset row (after the task's process_docs), with values as
// decoded from parquet/jsonl: string, int64, float64, bool, []any,
// map[string]any or nil.
type Doc = map[string]any

// OutputType is lm-eval's output_type of a task.
type OutputType int

// The four lm-eval output types.
const (
	MultipleChoice OutputType = iota
	Loglikelihood
	LoglikelihoodRolling
	GenerateUntil
)

// String returns lm-eval's name of the output type.
func (o OutputType) String() string {
	switch o {
	case MultipleChoice:
		return "multiple_choice"
	case Loglikelihood:
		return "loglikelihood"
	case LoglikelihoodRolling:
		return "loglikelihood_rolling"
	case GenerateUntil:
		return "generate_until"
	}
	return "unknown"
}

// RequestKind says which engine call answers a Request.
type RequestKind int

// Request kinds: loglikelihood (context, continuation), rolling loglikelihood
// of a whole text, and generation until a stop string.
const (
	ReqLoglikelihood RequestKind = iota
	ReqRolling
	ReqGenerate
)

// Request is one model call, as lm-eval's Instance.arguments.
type Request struct {
	Kind         RequestKind
	Context      string         // loglikelihood / generate
	Continuation string         // loglikelihood
	Text         string         // rolling
	Until        []string       // generate: stop strings (EOS is added by the engine)
	MaxTokens    int            // generate: max_gen_toks (256 unless set)
	GenKwargs    map[string]any // generate: the generation_kwargs as lm-eval logs them in "arguments"
	GenKeys      []string       // generate: GenKwargs' key order in lm-eval's log
	// Repeats is lm-eval's repeats (generate): the request is answered this
	// many times, each answer with its own sampling seed; 0 or 1 is once.
	Repeats int
}

// Times is how many answers the request gets: Repeats, at least 1.
func (r Request) Times() int { return max(1, r.Repeats) }

// Response is the model's answer to one Request: LogProb and IsGreedy for
// loglikelihood (LogProb only for rolling), Text for generation.
type Response struct {
	LogProb   float64
	IsGreedy  bool
	Text      string
	NumTokens int
	// Repeats are every answer of a repeated request (Request.Repeats > 1),
	// in repeat order; the fields above are then the first one's, which is
	// what lm-eval's take_first keeps. nil for a request answered once.
	Repeats []Response
	// Thought is the reasoning cut from a generation when the run splits
	// reasoning from answers (lm.Thinking, lm-eval's think_end_token):
	// Text is then the answer only. nil otherwise.
	Thought *Thought
}

// Thought is the reasoning part of one generation (Response.Thought).
type Thought struct {
	Reasoning string // the generation before the answer (think-end token and whitespace included)
	Found     bool   // the think-end token occurs in the generation
	// ReasoningTokens and AnswerTokens split the generated tokens at the
	// last think-end token (Counted false: the token's id or the LM's
	// token ids are unknown).
	ReasoningTokens, AnswerTokens int
	Counted                       bool
}

// All are the request's answers: Repeats, or the response itself.
func (r Response) All() []Response {
	if len(r.Repeats) > 0 {
		return r.Repeats
	}
	return []Response{r}
}

// Instance is one evaluated document with its requests (a multiple-choice
// doc has one request per choice, in choice order).
type Instance struct {
	DocID    int
	Doc      Doc // the processed doc, as lm-eval logs it in samples files
	Target   any // as lm-eval's doc_to_target (int gold index, or string); samples log str(Target)
	Requests []Request
	// DocKeys is Doc's field order (key "") and that of nested structs (key:
	// dotted path, lists looked through), so Doc can be logged in lm-eval's
	// (dataset) order.
	DocKeys map[string][]string
	// SplitDocs is the number of documents in the evaluation split before
	// --limit (lm-eval's n-samples "original").
	SplitDocs int
}

// Options control how a task builds its instances. The zero value (with
// NumFewshot -1 and Seed 1234) reproduces lm-eval's defaults.
type Options struct {
	DataDir            string  // dataset root (--data-dir); see data.go for the layouts read
	HubCache           string  // hub cache searched for datasets after DataDir ("" = $HF_HUB_CACHE, else $HF_HOME/hub)
	NumFewshot         int     // -1 = task default
	Limit              float64 // 0 = all; < 1 fraction (ceil(N*limit)); >= 1 count (int(limit))
	Seed               int64   // few-shot sampler seed (lm-eval default 1234)
	ApplyChatTemplate  bool
	FewshotAsMultiturn bool
	SystemInstruction  string
	// ChatTemplate renders messages when ApplyChatTemplate is set (Build
	// fails without one). goeval.Evaluate sets it to the model's.
	ChatTemplate lm.ChatTemplater
	GenKwargs    map[string]any // --gen-kwargs overrides (dict.update) for generate tasks
	// Samples (lm-eval's --samples) selects documents by index per task
	// name, instead of Limit; a task it does not name evaluates them all.
	// As in lm-eval, the chosen documents are taken in dataset order, each
	// once, and keep their index as doc_id.
	Samples map[string][]int
	// ConfirmRunUnsafeCode is lm-eval's confirm_run_unsafe_code: a task that
	// executes the generated code (unsafe_code: true) builds only with it.
	ConfirmRunUnsafeCode bool
	// CodeRunner runs those tasks' programs (nil: goeval's sandbox,
	// NewSandboxRunner, made when such a task builds).
	CodeRunner CodeRunner
}

// DefaultOptions returns lm-eval's defaults: task few-shot, all docs, seed 1234.
func DefaultOptions() Options { return Options{NumFewshot: -1, Seed: 1234} }

// ChatMessage is one chat turn given to a chat template (lm.ChatMessage).
type ChatMessage = lm.ChatMessage

// MetricSpec is one entry of a task's metric_list.
type MetricSpec struct {
	Name           string
	Aggregation    string // "mean", "perplexity", "weighted_perplexity", "bits_per_byte"
	HigherIsBetter bool
}

// SampleResult is a doc's scores under one filter: per metric name a number
// or, for corpus metrics (word/byte perplexity, bits_per_byte), an
// (loglikelihood, weight) pair; FilteredResps is what lm-eval logs as
// filtered_resps (before str() sanitising).
type SampleResult struct {
	Metrics       map[string]metrics.Value
	FilteredResps any
}

// Group is a named set of tasks or groups whose metrics are aggregated.
type Group struct {
	Name         string
	Alias        string   // group_alias ("stem"); empty = Name
	Subtasks     []string // tasks or groups, in lm-eval's order
	Aggregate    bool     // has aggregate_metric_list
	WeightBySize bool
	Metrics      []string // aggregated metric names (e.g. "acc")
	Version      string   // group metadata version (a string in results "versions")
	tag          bool     // a YAML tag: its tasks run, with no group result

	// AggMetrics is a YAML group's aggregate_metric_list, entry by entry
	// (nil: Metrics, every filter, WeightBySize); see AggregateList.
	AggMetrics []AggMetric
	// inline are members the group's file builds itself (groupinline.go).
	inline map[string]inlineMember
}

// Task is one evaluable task.
type Task interface {
	Name() string
	Alias() string // task_alias (mmlu subjects: the subject), else Name
	OutputType() OutputType
	Version() any // lm-eval's metadata.version (float64)
	// NumFewshot is the effective shot count under opts (task default when
	// opts.NumFewshot < 0; tasks whose YAML fixes 0 ignore the override).
	NumFewshot(opts Options) int
	// Config is lm-eval's "configs" entry for the results file, a JSON
	// object in lm-eval's key order; its "num_fewshot" is the task default
	// (the evaluator overwrites it with the effective value).
	Config() json.RawMessage
	Metrics() []MetricSpec
	Filters() []string
	// Build loads the docs, applies the limit and renders prompts and
	// requests, few-shot included, exactly as lm-eval.
	Build(opts Options) ([]Instance, error)
	// Process scores one instance from its responses (one per request, in
	// order): per filter name, the per-sample metrics.
	Process(inst *Instance, resps []Response) (map[string]SampleResult, error)
}
