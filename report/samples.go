package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/jsonl"
	"github.com/goeval/goeval/internal/py"
)

// Sample is one line of lm-eval's samples_<task>_<date_id>.jsonl (lm-eval's
// EvaluationTracker.save_results_samples):
// one (filter, doc) pair. Written keys, in order: doc_id, doc, target,
// arguments, resps, filtered_resps, filter, metrics, doc_hash, prompt_hash,
// target_hash, then each metric value as a top-level key.
type Sample struct {
	DocID int // index in the evaluation split
	// Doc is the processed document. Use *py.Map[any] to keep the column order
	// (doc_hash depends on it); a map[string]any is written with sorted keys.
	// Integers must stay integers (int, int64 or json.Number) for the hash
	// to match Python's.
	Doc    any
	Target string // str(doc_to_target(doc)), e.g. "1" for a gold index
	// Arguments holds each request's arguments in request order: for
	// loglikelihood {context, continuation}, for generate_until {context,
	// *py.Map[any]{"until": […], "do_sample": false, …}}, for rolling {text}.
	// Written as {"gen_args_i": {"arg_j": …}}.
	Arguments [][]any
	// Resps are the raw responses per request, nested as lm-eval nests them:
	// multiple choice [][]any{{[]any{-1.95, false}}, …}, generate
	// [][]any{{"text"}}, rolling [][]any{{-12345.67}}. Leaves are written
	// as Python str() (py.Sanitize), so files read back hold strings.
	Resps any
	// FilteredResps are the responses after the filter, one per request:
	// multiple choice []any{[]any{-1.95, false}, …}, generate []any{"18"}.
	FilteredResps any
	Filter        string   // filter name: "none", "strict-match", …
	Metrics       []string // metric names, in order
	DocHash       string   // DocHash(Doc); filled by WriteRun when empty
	PromptHash    string   // PromptHash(Arguments); filled by WriteRun when empty
	TargetHash    string   // TargetHash(Target); filled by WriteRun when empty
	// Values holds the per-doc metric values keyed by metric name ("acc":
	// 1.0; wikitext "word_perplexity": []any{-12345.67, 3051}).
	Values py.Map[any]
	// Extra keeps unknown keys read from a file; written after Values.
	Extra py.Map[any]
}

// HashString is lm-eval's utils.hash_string: hex sha256 of the UTF-8 text.
func HashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// DocHash is lm-eval's doc_hash: sha256 of json.dumps(doc, indent=2,
// ensure_ascii=False).
func DocHash(doc any) (string, error) {
	b, err := py.JSON(doc, true)
	if err != nil {
		return "", fmt.Errorf("doc_hash: %w", err)
	}
	return HashString(string(b)), nil
}

// PromptHash is lm-eval's prompt_hash: sha256 of the first request's first
// argument (the context, or the text of a rolling request).
func PromptHash(arguments [][]any) string {
	if len(arguments) == 0 || len(arguments[0]) == 0 {
		return HashString("")
	}
	return HashString(py.Str(arguments[0][0]))
}

// TargetHash is lm-eval's target_hash: sha256 of str(target).
func TargetHash(target string) string { return HashString(target) }

// TaskHash is a task's entry in "task_hashes": sha256 of the concatenated
// doc_hash+prompt_hash+target_hash of all its sample lines, all filters.
func TaskHash(samples []Sample) string {
	var b strings.Builder
	for _, s := range samples {
		b.WriteString(s.DocHash + s.PromptHash + s.TargetHash)
	}
	return HashString(b.String())
}

// FillHashes computes the three hashes where they are empty.
func (s *Sample) FillHashes() error {
	if s.DocHash == "" {
		h, err := DocHash(s.Doc)
		if err != nil {
			return fmt.Errorf("doc %d: %w", s.DocID, err)
		}
		s.DocHash = h
	}
	if s.PromptHash == "" {
		s.PromptHash = PromptHash(s.Arguments)
	}
	if s.TargetHash == "" {
		s.TargetHash = TargetHash(s.Target)
	}
	return nil
}

// ordered returns the line's object in lm-eval's key order.
func (s *Sample) ordered() *py.Map[any] {
	args := py.NewMap[any]()
	for i, a := range s.Arguments {
		one := py.NewMap[any]()
		for j, v := range a {
			one.Set("arg_"+strconv.Itoa(j), v)
		}
		args.Set("gen_args_"+strconv.Itoa(i), one)
	}
	metrics := s.Metrics
	if metrics == nil {
		metrics = []string{}
	}
	o := py.NewMap[any]()
	o.Set("doc_id", s.DocID)
	o.Set("doc", s.Doc)
	o.Set("target", s.Target)
	o.Set("arguments", args)
	o.Set("resps", py.Sanitize(s.Resps))
	o.Set("filtered_resps", py.Sanitize(s.FilteredResps))
	o.Set("filter", s.Filter)
	o.Set("metrics", metrics)
	o.Set("doc_hash", s.DocHash)
	o.Set("prompt_hash", s.PromptHash)
	o.Set("target_hash", s.TargetHash)
	for _, k := range s.Values.Keys() {
		o.Set(k, s.Values.Value(k))
	}
	for _, k := range s.Extra.Keys() {
		o.Set(k, s.Extra.Value(k))
	}
	return o
}

// EncodeLine returns the sample as lm-eval writes it: json.dumps(sample,
// ensure_ascii=False) and a newline.
func (s *Sample) EncodeLine() ([]byte, error) {
	b, err := py.JSON(s.ordered(), false)
	if err != nil {
		return nil, fmt.Errorf("sample doc %d: %w", s.DocID, err)
	}
	return append(b, '\n'), nil
}

// fixedSampleKeys are the non-metric keys of a samples line.
var fixedSampleKeys = map[string]bool{
	"doc_id": true, "doc": true, "target": true, "arguments": true, "resps": true,
	"filtered_resps": true, "filter": true, "metrics": true, "doc_hash": true,
	"prompt_hash": true, "target_hash": true,
}

// sampleFromMap converts one decoded line into a Sample.
func sampleFromMap(o *py.Map[any]) (Sample, error) {
	var s Sample
	id, ok := o.Float("doc_id")
	if !ok {
		return s, errors.New(`missing or non-numeric "doc_id"`)
	}
	s.DocID = int(id)
	s.Doc, _ = o.Get("doc")
	if t, ok := o.Get("target"); ok {
		s.Target = py.Str(t)
	}
	if a, ok := o.Get("arguments"); ok {
		args, err := decodeArguments(a)
		if err != nil {
			return s, err
		}
		s.Arguments = args
	}
	s.Resps, _ = o.Get("resps")
	s.FilteredResps, _ = o.Get("filtered_resps")
	s.Filter, _ = getString(o, "filter")
	s.DocHash, _ = getString(o, "doc_hash")
	s.PromptHash, _ = getString(o, "prompt_hash")
	s.TargetHash, _ = getString(o, "target_hash")
	if m, ok := o.Get("metrics"); ok {
		list, _ := m.([]any)
		for _, x := range list {
			s.Metrics = append(s.Metrics, py.Str(x))
		}
	}
	metricSet := map[string]bool{}
	for _, m := range s.Metrics {
		metricSet[m] = true
	}
	for _, k := range o.Keys() {
		switch {
		case fixedSampleKeys[k]:
		case metricSet[k] || len(s.Metrics) == 0:
			s.Values.Set(k, o.Value(k))
		default:
			s.Extra.Set(k, o.Value(k))
		}
	}
	return s, nil
}

func getString(o *py.Map[any], k string) (string, bool) {
	v, ok := o.Get(k)
	s, isStr := v.(string)
	return s, ok && isStr
}

// decodeArguments turns {"gen_args_i": {"arg_j": v}} back into [][]any.
// Older lm-eval files may hold a plain list of lists.
func decodeArguments(a any) ([][]any, error) {
	switch x := a.(type) {
	case *py.Map[any]:
		var out [][]any
		for _, k := range x.Keys() {
			inner, ok := x.Value(k).(*py.Map[any])
			if !ok {
				return nil, fmt.Errorf("arguments.%s: want an object of arg_N", k)
			}
			var one []any
			for _, ak := range inner.Keys() {
				one = append(one, inner.Value(ak))
			}
			out = append(out, one)
		}
		return out, nil
	case []any:
		var out [][]any
		for _, v := range x {
			one, _ := v.([]any)
			out = append(out, one)
		}
		return out, nil
	}
	return nil, errors.New(`"arguments" is neither an object nor a list`)
}

// ReadSamples reads a samples_<task>_<date_id>.jsonl file written by lm-eval
// or goeval. A malformed line gives a bad-input error naming file and line.
func ReadSamples(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.BadInputf("read samples %s: %w", path, err)
	}
	defer f.Close()
	var out []Sample
	err = jsonl.Lines(f, func(line int, b []byte) error {
		s, err := parseSampleLine(b)
		if err != nil {
			return errs.BadInputf("samples %s line %d: %w", path, line, err)
		}
		out = append(out, s)
		return nil
	})
	if err != nil && !errs.IsBadInput(err) {
		return nil, fmt.Errorf("samples %s: %w", path, err)
	}
	return out, err
}

func parseSampleLine(b []byte) (Sample, error) {
	v, err := py.ParseJSON(b)
	if err != nil {
		return Sample{}, fmt.Errorf("invalid JSON: %w", err)
	}
	o, ok := v.(*py.Map[any])
	if !ok {
		return Sample{}, errors.New("not a JSON object")
	}
	return sampleFromMap(o)
}
