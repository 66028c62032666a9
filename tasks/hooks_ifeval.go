package tasks

import (
	"errors"
	"fmt"

	"github.com/goeval/goeval/internal/ifeval"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// lm-eval's ifeval and leaderboard_ifeval (tasks/ifeval/utils.py, which
// leaderboard/ifeval/utils.py imports): process_results and
// agg_inst_level_acc in Go, on internal/ifeval's checks. A document with an
// instruction internal/ifeval leaves to Python (langdetect's language
// detection, nltk's punkt sentences) is scored by lm-eval's own
// process_results in the worker when the Index has a Python; without one
// it fails with a line saying so.

func init() {
	for _, dir := range []string{"ifeval", "leaderboard.ifeval"} {
		builtinHooks[dir+".utils.process_results"] = registered{fn: ResultsHook(ifevalResults), pyFallback: true}
		registerBuiltinHook(dir+".utils.agg_inst_level_acc", AggregateFunc(aggInstLevelAcc))
	}
}

// ifevalResults is utils.process_results: the four metrics of one
// document, valued as the Python function's are (bools and lists of bools).
func ifevalResults(doc Doc, resps []Response) (map[string]metrics.Value, error) {
	ids, err := ifevalStrings(doc["instruction_id_list"], "instruction_id_list")
	if err != nil {
		return nil, err
	}
	kws, err := ifevalKwargs(doc["kwargs"])
	if err != nil {
		return nil, err
	}
	prompt, err := str(doc, "prompt")
	if err != nil {
		return nil, err
	}
	if len(resps) == 0 {
		return nil, errors.New("ifeval: no response (IndexError in lm-eval)")
	}
	res, err := ifeval.Evaluate(ids, kws, prompt, resps[0].Text)
	if err != nil {
		return nil, err
	}
	return map[string]metrics.Value{
		"prompt_level_strict_acc": pyValue(res.PromptStrict(), res.PromptStrict()),
		"inst_level_strict_acc":   pyValue(boolList(res.Strict), boolList(res.Strict)),
		"prompt_level_loose_acc":  pyValue(res.PromptLoose(), res.PromptLoose()),
		"inst_level_loose_acc":    pyValue(boolList(res.Loose), boolList(res.Loose)),
	}, nil
}

func boolList(bs []bool) []any {
	out := make([]any, len(bs))
	for i, b := range bs {
		out[i] = b
	}
	return out
}

// aggInstLevelAcc is utils.agg_inst_level_acc: the mean of the flattened
// per-instruction verdicts.
func aggInstLevelAcc(values []metrics.Value) (float64, error) {
	sum, n := 0, 0
	for i, v := range values {
		l, ok := pyOfValue(v).([]any)
		if !ok {
			return 0, fmt.Errorf("agg_inst_level_acc: value %d is not a list of verdicts", i)
		}
		for _, x := range l {
			if b, isBool := x.(bool); isBool && b {
				sum++
			}
			n++
		}
	}
	if n == 0 {
		return 0, errors.New("agg_inst_level_acc: no verdicts (ZeroDivisionError in lm-eval)")
	}
	return float64(sum) / float64(n), nil
}

func ifevalStrings(v any, field string) ([]string, error) {
	l, ok := v.([]any)
	if !ok {
		if s, isStrs := v.([]string); isStrs {
			return s, nil
		}
		return nil, fmt.Errorf("ifeval: document field %s is a %T, want a list of strings", field, v)
	}
	out := make([]string, len(l))
	for i, x := range l {
		s, isStr := x.(string)
		if !isStr {
			return nil, fmt.Errorf("ifeval: document field %s[%d] is a %T, want a string", field, i, x)
		}
		out[i] = s
	}
	return out, nil
}

// ifevalKwargs reads the document's kwargs: a list of mappings.
func ifevalKwargs(v any) ([]ifeval.Kwargs, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("ifeval: document field kwargs is a %T, want a list of mappings", v)
	}
	out := make([]ifeval.Kwargs, len(l))
	for i, x := range l {
		kw := ifeval.Kwargs{}
		switch m := x.(type) {
		case map[string]any:
			for k, e := range m {
				kw[k] = e
			}
		case *py.Map[any]:
			for _, k := range m.Keys() {
				kw[k] = m.Value(k)
			}
		default:
			return nil, fmt.Errorf("ifeval: document field kwargs[%d] is a %T, want a mapping", i, x)
		}
		out[i] = kw
	}
	return out, nil
}

// needsPython is whether a Go hook's error asks for the Python function.
func needsPython(err error) bool { return errors.Is(err, ifeval.ErrNeedsPython) }

// pyFallback resolves the task file's process_results in Python, for a Go
// hook with pyFallback; nil when the Index has no usable Python (the
// documents that need it then fail with a line saying so).
func (r *cfgReader) pyFallback() (*pyFunc, error) {
	if r.py == nil {
		return nil, errors.New("goeval runs no Python (--python none)")
	}
	if err := r.py.Available(); err != nil {
		return nil, err
	}
	v, _ := r.c.get("process_results")
	ref, ok := v.(hookRef)
	if !ok {
		return nil, errors.New("process_results is not a !function")
	}
	return resolvePy(r.py, "process_results", ref, hookResults)
}

// withPy is sc scoring with the Python process_results f.
func (sc *yamlScorer) withPy(f *pyFunc) *yamlScorer {
	c := *sc
	c.pyResults = f
	return &c
}
