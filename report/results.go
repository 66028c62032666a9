// Package report is goeval's home for lm-evaluation-harness files: it
// converts an evaluation's goeval.Results into lm-eval's results and
// samples files (FromResults, RunInfo, RunConfig), reads and writes them
// byte-compatibly with lm-eval, lines runs up in comparison tables (the
// significance tests themselves are in package metrics), and renders the
// summary and comparison tables; charts and the HTML report are
// report/charts. It computes no statistics and links no plotting library.
package report

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// NSamples is one "n-samples" entry: documents in the split and documents
// evaluated (after --limit).
type NSamples struct {
	Original  int `json:"original"`
	Effective int `json:"effective"`
}

// Results mirrors lm-eval's results_<date_id>.json (lm-eval's
// EvaluationTracker.save_results_aggregated). Per-task
// metric maps keep lm-eval's keys as they are: "alias", "name",
// "sample_len", "acc,none", "acc_stderr,none" (a float, or the string "N/A").
// Numbers read from a file are json.Number; goeval code may store float64
// and int. Keys are written in lm-eval's order (see keyOrder).
type Results struct {
	Results        py.Map[*py.Map[any]] // "results": task and group → metric key → value
	Groups         py.Map[*py.Map[any]] // "groups": written only when non-empty
	GroupSubtasks  py.Map[[]string]     // "group_subtasks": group → its subtasks
	Configs        py.Map[any]          // "configs": task → TaskConfig dict
	Versions       py.Map[any]          // "versions": task → version (float64 for tasks, string for groups)
	NShot          py.Map[any]          // "n-shot": task → int
	HigherIsBetter py.Map[any]          // "higher_is_better": task → *py.Map[any]{metric: bool}
	NSamples       py.Map[NSamples]     // "n-samples": task → counts
	Config         py.Map[any]          // "config": model, model_args, batch_size, limit, seeds, …
	GitHash        string               // "git_hash"; "" is written as null
	Date           float64              // "date": unix seconds at start
	TaskHashes     py.Map[string]       // "task_hashes": task → sha256 over its samples' hashes (see TaskHash)

	ModelSource        string // "model_source", e.g. "hf" (lm-eval) or "goeval"
	ModelName          string // "model_name"
	ModelNameSanitized string // "model_name_sanitized"; derived from ModelName by WriteRun when empty
	TotalEvalSeconds   string // "total_evaluation_time_seconds" (a string in lm-eval); "" is written as null

	// Extra holds every other key: pretty_env_info, transformers_version,
	// lm_eval_version, tokenizer_*_token, eot_token_id, max_length,
	// system_instruction, chat_template, … and keys lm-eval may add later.
	// Known keys are written in lm-eval's place; unknown ones at the end.
	Extra py.Map[any]
}

// keyOrder is the top-level key order of lm-eval's results file.
var keyOrder = []string{
	"results", "groups", "group_subtasks", "configs", "versions", "n-shot",
	"higher_is_better", "n-samples", "config", "git_hash", "date",
	"pretty_env_info", "transformers_version", "lm_eval_version", "upper_git_hash",
	"tokenizer_pad_token", "tokenizer_eos_token", "tokenizer_bos_token",
	"eot_token_id", "max_length", "task_hashes", "model_source", "model_name",
	"model_name_sanitized", "system_instruction", "system_instruction_sha",
	"fewshot_as_multiturn", "chat_template", "chat_template_sha",
	"total_evaluation_time_seconds",
}

// alwaysNull are written as null when absent, as lm-eval's
// GeneralConfigTracker does.
var alwaysNull = map[string]bool{
	"system_instruction": true, "system_instruction_sha": true,
	"fewshot_as_multiturn": true, "chat_template": true, "chat_template_sha": true,
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// typed returns the value of a key held in a typed field, and whether the
// key is one of them.
func (r *Results) typed(key string) (any, bool) {
	switch key {
	case "results":
		return &r.Results, true
	case "groups":
		return &r.Groups, true
	case "group_subtasks":
		return &r.GroupSubtasks, true
	case "configs":
		return &r.Configs, true
	case "versions":
		return &r.Versions, true
	case "n-shot":
		return &r.NShot, true
	case "higher_is_better":
		return &r.HigherIsBetter, true
	case "n-samples":
		return &r.NSamples, true
	case "config":
		return &r.Config, true
	case "git_hash":
		return nullIfEmpty(r.GitHash), true
	case "date":
		return r.Date, true
	case "task_hashes":
		return &r.TaskHashes, true
	case "model_source":
		return r.ModelSource, true
	case "model_name":
		return r.ModelName, true
	case "model_name_sanitized":
		return r.ModelNameSanitized, true
	case "total_evaluation_time_seconds":
		return nullIfEmpty(r.TotalEvalSeconds), true
	}
	return nil, false
}

// ordered returns the file's top-level object in lm-eval's key order.
func (r *Results) ordered() *py.Map[any] {
	out := py.NewMap[any]()
	known := map[string]bool{}
	for _, k := range keyOrder {
		known[k] = true
		if v, ok := r.typed(k); ok {
			if k == "groups" && r.Groups.Len() == 0 {
				continue
			}
			out.Set(k, v)
		} else if v, ok := r.Extra.Get(k); ok {
			out.Set(k, v)
		} else if alwaysNull[k] {
			out.Set(k, nil)
		}
	}
	for _, k := range r.Extra.Keys() {
		if !known[k] {
			out.Set(k, r.Extra.Value(k))
		}
	}
	return out
}

// Encode returns the file contents exactly as lm-eval writes them:
// json.dumps(results, indent=2, ensure_ascii=False).
func (r *Results) Encode() ([]byte, error) { return py.JSON(r.ordered(), true) }

// MarshalJSON writes the results object (compact) in lm-eval's key order.
func (r *Results) MarshalJSON() ([]byte, error) { return py.JSON(r.ordered(), false) }

// UnmarshalJSON reads a results object written by lm-eval or goeval.
func (r *Results) UnmarshalJSON(data []byte) error {
	var top py.Map[json.RawMessage]
	if err := top.UnmarshalJSON(data); err != nil {
		return err
	}
	*r = Results{}
	for _, k := range top.Keys() {
		raw, _ := top.Get(k)
		if err := r.setKey(k, raw); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
	}
	return nil
}

func (r *Results) setKey(k string, raw json.RawMessage) error {
	var s *string
	switch k {
	case "git_hash":
		s = &r.GitHash
	case "model_source":
		s = &r.ModelSource
	case "model_name":
		s = &r.ModelName
	case "model_name_sanitized":
		s = &r.ModelNameSanitized
	case "total_evaluation_time_seconds":
		s = &r.TotalEvalSeconds
	case "date":
		var f *float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return err
		}
		if f != nil {
			r.Date = *f
		}
		return nil
	}
	if s != nil {
		v, err := py.ParseJSON(raw)
		if err != nil {
			return err
		}
		if v != nil {
			*s = py.Str(v)
		}
		return nil
	}
	if dst, ok := r.typed(k); ok {
		return json.Unmarshal(raw, dst)
	}
	v, err := py.ParseJSON(raw)
	if err != nil {
		return err
	}
	r.Extra.Set(k, v)
	return nil
}

// ReadResults reads a results_<date_id>.json file written by lm-eval (any
// version since 0.4) or goeval. Malformed files give a bad-input error
// naming the file.
func ReadResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errs.BadInputf("read results %s: %w", path, err)
	}
	var r Results
	if err := r.UnmarshalJSON(data); err != nil {
		return nil, errs.BadInputf("results %s: not an lm-eval results file: %w", path, err)
	}
	if r.Results.Len() == 0 {
		return nil, errs.BadInputf("results %s: no \"results\" object; is this an lm-eval results_*.json file?", path)
	}
	return &r, nil
}

// TaskNames returns the task and group names in "results", in file order.
func (r *Results) TaskNames() []string { return r.Results.Keys() }

// Metric returns one value from "results", e.g. Metric("gsm8k",
// "exact_match,strict-match"); ok is false if missing or not a number.
func (r *Results) Metric(task, key string) (float64, bool) {
	m, ok := r.Results.Get(task)
	if !ok {
		return 0, false
	}
	return m.Float(key)
}
