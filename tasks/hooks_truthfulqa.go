package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
)

// truthfulqa_gen's Python functions (lm-eval's tasks/truthfulqa/utils.py)
// in Go, so that it runs without Python: process_docs_gen formats the
// answers; process_results_gen scores the generation against every true
// and false answer with sentence BLEU (sacrebleu, intl tokenizer) and
// ROUGE-1/2/Lsum (rouge_score) and keeps, per measure, the best true
// score (max), whether it beats the best false one (acc) and their
// difference (diff). Checked against the Python functions on generated
// documents and generations (hooks_truthfulqa_test.go, golden from
// parity/metrics/truthfulqa_golden.py).

func init() {
	registerBuiltinHook("truthfulqa.utils.process_docs_gen", DocsHook(truthfulQAGenDocs))
	registerBuiltinHook("truthfulqa.utils.process_results_gen", ResultsHook(truthfulQAGenResults))
}

// truthfulQAFormat is preprocess_function's _format_answers: answers
// stripped, empty ones dropped, a period added where none ends them.
func truthfulQAFormat(answers []string) []any {
	out := []any{}
	for _, a := range answers {
		a = py.Strip(a)
		if a == "" {
			continue
		}
		if a[len(a)-1] != '.' {
			a += "."
		}
		out = append(out, a)
	}
	return out
}

// truthfulQAGenDocs is process_docs_gen: question stripped, answers
// formatted, "I have no comment." among the true answers.
func truthfulQAGenDocs(docs []Doc) ([]Doc, error) {
	out := make([]Doc, len(docs))
	for i, d := range docs {
		q, err := str(d, "question")
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		lists := make([][]any, 2)
		for j, k := range []string{"incorrect_answers", "correct_answers"} {
			l, err := strList(d[k], k)
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", i, err)
			}
			lists[j] = truthfulQAFormat(l)
		}
		correct := lists[1]
		if !containsAny(correct, "I have no comment.") {
			correct = append(correct, "I have no comment.")
		}
		p := make(Doc, len(d))
		for k, v := range d {
			p[k] = v
		}
		p["question"], p["correct_answers"], p["incorrect_answers"] = py.Strip(q), correct, lists[0]
		out[i] = p
	}
	return out, nil
}

func containsAny(l []any, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
