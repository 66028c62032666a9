package tasks

import (
	"context"
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// The Python functions of lm-eval's code tasks (humaneval/utils.py for
// humaneval, humaneval_64, humaneval_plus and their _instruct variants;
// mbpp/utils.py for mbpp, mbpp_plus and theirs), so that lm-eval's own
// task files run: the filters that make a test program's candidates, and
// pass@k through code_eval's estimator, each candidate run as
// candidate + "\n" + tests by the task's CodeRunner.

func init() {
	registerBuiltinHook("humaneval.utils.pass_at_k", MetricHook{Names: passAtKNames, Score: passAtKScore})
	registerBuiltinHook("humaneval.utils.build_predictions", func(resps []string, doc Doc) ([]string, error) {
		return withPrompt(resps, doc, false)
	})
	registerBuiltinHook("humaneval.utils.build_predictions_instruct", func(resps []string, doc Doc) ([]string, error) {
		return withPrompt(resps, doc, true)
	})
	registerBuiltinHook("mbpp.utils.pass_at_1", MetricHook{Names: func(map[string]any) ([]string, error) {
		return []string{"pass_at_1"}, nil
	}, Score: passAt1Score})
	registerBuiltinHook("mbpp.utils.build_predictions", func(resps []string, _ Doc) ([]string, error) {
		out := make([]string, len(resps))
		for i, r := range resps {
			out[i] = extractCodeBlock(r)
		}
		return out, nil
	})
	registerBuiltinHook("mbpp.utils.list_fewshot_samples", func() ([]Doc, error) { return mbppShots(), nil })
}

// passAtKNames are pass_at_k's metric names: pass@k for each k (an int or
// a list of them), as code_eval's result dict.
func passAtKNames(kw map[string]any) ([]string, error) {
	ks, err := kList(kw)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = fmt.Sprintf("pass@%d", k)
	}
	return names, nil
}

func kList(kw map[string]any) ([]int, error) {
	for name := range kw {
		if name != "k" {
			return nil, fmt.Errorf("unknown argument %q (pass_at_k takes k)", name)
		}
	}
	toK := func(v any) (int, bool) {
		n, ok := v.(int64)
		return int(n), ok && n >= 1
	}
	if k, ok := toK(kw["k"]); ok {
		return []int{k}, nil
	}
	l, ok := kw["k"].([]any)
	if !ok || len(l) == 0 {
		return nil, fmt.Errorf("k: want a count or a list of counts, got %v", kw["k"])
	}
	out := make([]int, len(l))
	for i, v := range l {
		if out[i], ok = toK(v); !ok {
			return nil, fmt.Errorf("k: want counts >= 1, got %v", v)
		}
	}
	return out, nil
}

// passAtKScore is humaneval's pass_at_k: code_eval over the document's
// candidates (pass@k only where there are at least k).
func passAtKScore(ctx context.Context, gold, pred any, kw map[string]any, code CodeRunner) (map[string]metrics.Value, error) {
	ks, err := kList(kw)
	if err != nil {
		return nil, err
	}
	n, c, err := runCandidates(ctx, gold, pred, code)
	if err != nil {
		return nil, err
	}
	out := map[string]metrics.Value{}
	for _, k := range ks {
		if n >= k {
			out[fmt.Sprintf("pass@%d", k)] = metrics.Float(metrics.PassAtK(n, c, k))
		}
	}
	return out, nil
}

// passAt1Score is mbpp's pass_at_1: code_eval's pass@1 over one
// candidate, or over each of a list of them.
func passAt1Score(ctx context.Context, gold, pred any, _ map[string]any, code CodeRunner) (map[string]metrics.Value, error) {
	n, c, err := runCandidates(ctx, gold, pred, code)
	if err != nil {
		return nil, err
	}
	return map[string]metrics.Value{"pass_at_1": metrics.Float(metrics.PassAtK(n, c, 1))}, nil
}

// runCandidates runs candidate + "\n" + gold for each candidate of pred
// (a string is one) and counts those that pass.
func runCandidates(ctx context.Context, gold, pred any, code CodeRunner) (n, c int, err error) {
	tests, ok := gold.(string)
	if !ok {
		return 0, 0, fmt.Errorf("the tests (doc_to_target) are %T, want a string", gold)
	}
	var cands []string
	switch p := pred.(type) {
	case string:
		cands = []string{p}
	case []any:
		for _, x := range p {
			s, _ := x.(string)
			cands = append(cands, s)
		}
	default:
		return 0, 0, fmt.Errorf("the candidates are %T, want strings", pred)
	}
	if code == nil {
		return 0, 0, fmt.Errorf("no code runner: the task must have unsafe_code: true")
	}
	programs := make([]string, len(cands))
	for i, cand := range cands {
		programs[i] = cand + "\n" + tests
	}
	status, err := code.RunPrograms(ctx, programs)
	if err != nil {
		return 0, 0, err
	}
	for _, st := range status {
		if st == "passed" {
			c++
		}
	}
	return len(programs), c, nil
}

// withPrompt is humaneval's build_predictions: the document's prompt
// before each response; instruct keeps a response only up to its first
// ``` (build_predictions_instruct).
func withPrompt(resps []string, doc Doc, instruct bool) ([]string, error) {
	prompt, err := str(doc, "prompt")
	if err != nil {
		return nil, err
	}
	out := make([]string, len(resps))
	for i, r := range resps {
		if j := strings.Index(r, "```"); instruct && j >= 0 {
			r = r[:j]
		}
		out[i] = prompt + r
	}
	return out, nil
}

var (
	codeBlock  = py.MustCompile("(?s)```(?:\\w+)?\\n?(.*?)\\n?```")
	pythonTick = py.MustCompile("```python")
)

// extractCodeBlock is mbpp's extract_code_blocks: the first ``` block of
// "```" + text (the gen_prefix opened one), else of text with "```python"
// made "```", else "".
func extractCodeBlock(text string) string {
	if m := codeBlock.FindAll("```" + text); len(m) > 0 {
		return m[0][0]
	}
	if m := codeBlock.FindAll(pythonTick.Sub(text, "```")); len(m) > 0 {
		return m[0][0]
	}
	return ""
}
