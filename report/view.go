package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// SampleView is a samples line made readable: the prompt, the choices
// with the gold answer and the model's pick, or the generated text.
type SampleView struct {
	DocID    int
	Filter   string
	Prompt   string   // the context of the first request (or the rolling text)
	Choices  []string // multiple choice: each request's continuation
	LLs      []float64
	Gold     int    // index into Choices, -1 if unknown
	Pick     int    // argmax of LLs (first maximum, as numpy), -1 without choices or with a NaN
	Target   string // str(doc_to_target)
	Response string // generate: the raw response; rolling: the log-likelihood
	Filtered string // generate: the filtered response
	Metric   string // the first metric of the line
	Score    float64
	HasScore bool
}

// Correct reports whether the line scored 1 on its first metric.
func (v SampleView) Correct() bool { return v.HasScore && v.Score == 1 }

// ViewSample builds the readable view of one samples line.
func ViewSample(s Sample) SampleView {
	v := SampleView{DocID: s.DocID, Filter: s.Filter, Target: s.Target, Gold: -1, Pick: -1}
	if len(s.Arguments) > 0 && len(s.Arguments[0]) > 0 {
		v.Prompt = py.Str(s.Arguments[0][0])
	}
	if len(s.Metrics) > 0 {
		v.Metric = s.Metrics[0]
		v.Score, v.HasScore = s.Values.Float(v.Metric)
	}
	filtered, _ := s.FilteredResps.([]any)
	if isChoiceSample(s) {
		for i, a := range s.Arguments {
			v.Choices = append(v.Choices, py.Str(a[1]))
			ll := 0.0
			if i < len(filtered) {
				if pair, ok := filtered[i].([]any); ok && len(pair) > 0 {
					ll, _ = strconv.ParseFloat(py.Str(pair[0]), 64)
				}
			}
			v.LLs = append(v.LLs, ll)
		}
		v.Pick = argmaxFirst(v.LLs)
		v.Gold = goldIndex(s.Target, v.Choices)
		return v
	}
	if resps, ok := s.Resps.([]any); ok && len(resps) > 0 {
		if inner, ok := resps[0].([]any); ok && len(inner) > 0 {
			v.Response = py.Str(inner[0])
		}
	}
	if len(filtered) > 0 {
		v.Filtered = py.Str(filtered[0])
	}
	return v
}

// isChoiceSample: several requests, each (context, continuation string).
func isChoiceSample(s Sample) bool {
	if len(s.Arguments) < 2 {
		return false
	}
	for _, a := range s.Arguments {
		if len(a) != 2 {
			return false
		}
		if _, ok := a[1].(string); !ok {
			return false
		}
	}
	return true
}

// argmaxFirst is the first maximum, or -1 when a value is NaN (a model
// whose numerics broke picks nothing).
func argmaxFirst(xs []float64) int {
	best := -1
	for i, x := range xs {
		if math.IsNaN(x) {
			return -1
		}
		if best < 0 || x > xs[best] {
			best = i
		}
	}
	return best
}

// goldIndex reads the target as a choice index, or finds it among the
// choices (continuations carry the target delimiter, usually " ").
func goldIndex(target string, choices []string) int {
	if i, err := strconv.Atoi(target); err == nil && i >= 0 && i < len(choices) {
		return i
	}
	for i, c := range choices {
		if strings.TrimSpace(c) == strings.TrimSpace(target) {
			return i
		}
	}
	return -1
}

// Str writes a sample value as lm-eval's files and Python's str() do
// (1.0, True, None), for viewers that print samples.
func Str(v any) string { return py.Str(v) }
