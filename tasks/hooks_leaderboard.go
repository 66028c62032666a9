package tasks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// Built-in hooks for the Open LLM Leaderboard v2 task files
// (lm_eval/tasks/leaderboard, used with --include-path) and truthfulqa_mc2,
// so that they run without Python. Each is the Python function of the same
// name, checked against it on the same documents and responses
// (hooks_leaderboard_test.go); leaderboard/math's process_results is in
// hooks_leaderboard_math.go. leaderboard/ifeval and bbh need none of these:
// bbh has no Python, ifeval's checks are Go elsewhere or run in the worker.

func init() {
	registerBuiltinHook("leaderboard.gpqa.utils.process_docs", randDocsHook(gpqaProcessDocs),
		"choice1", "choice2", "choice3", "choice4", "answer")
	registerBuiltinHook("leaderboard.musr.utils.doc_to_text", musrText)
	registerBuiltinHook("leaderboard.musr.utils.doc_to_choice", musrChoice)
	registerBuiltinHook("leaderboard.mmlu_pro.utils.doc_to_text", mmluProText)
	registerBuiltinHook("leaderboard.mmlu_pro.utils.doc_to_choice", mmluProChoice)
	registerBuiltinHook("truthfulqa.utils.process_results_mc2", truthfulQAMC2)
}

var gpqaBracketRe = regexp.MustCompile(`\[.*?\]`) // Python's "\[.*?\]": "." stops at "\n" in both

// gpqaPreprocess is leaderboard/gpqa/utils.py's preprocess (None → " ").
func gpqaPreprocess(v any) (string, error) {
	if v == nil {
		return " ", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s has no strip (AttributeError in lm-eval)", pyKind(v))
	}
	s = py.Strip(s)
	s = strings.ReplaceAll(s, " [title]", ". ")
	s = gpqaBracketRe.ReplaceAllLiteralString(s, "")
	return strings.ReplaceAll(s, "  ", " "), nil
}

// gpqaProcessDocs is leaderboard/gpqa's process_docs: each document's four
// answers, preprocessed, shuffled by lm-eval's global random.shuffle, as
// choice1..choice4, and answer "(A)".."(D)" naming the correct one's first
// place.
func gpqaProcessDocs(docs []Doc, rnd *py.Rand) ([]Doc, error) {
	keys := []string{"Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3", "Correct Answer"}
	out := make([]Doc, len(docs))
	for i, d := range docs {
		choices := make([]string, 4)
		for j, k := range keys {
			v, ok := d[k]
			if !ok {
				return nil, fmt.Errorf("document %d has no field %q (KeyError in lm-eval)", i, k)
			}
			var err error
			if choices[j], err = gpqaPreprocess(v); err != nil {
				return nil, fmt.Errorf("document %d: %s: %w", i, k, err)
			}
		}
		correct := choices[3]
		rnd.Shuffle(len(choices), func(a, b int) { choices[a], choices[b] = choices[b], choices[a] })
		at := 0
		for at < 3 && choices[at] != correct {
			at++
		}
		p := make(Doc, len(d)+5)
		for k, v := range d {
			p[k] = v
		}
		for j, c := range choices {
			p[fmt.Sprintf("choice%d", j+1)] = c
		}
		p["answer"] = fmt.Sprintf("(%c)", 'A'+at)
		out[i] = p
	}
	return out, nil
}

// musrChoices is ast.literal_eval(doc["choices"]).
func musrChoices(d Doc) ([]any, error) {
	s, err := str(d, "choices")
	if err != nil {
		return nil, err
	}
	v, err := py.LiteralEval(s)
	if err != nil {
		return nil, fmt.Errorf("choices %q: ast.literal_eval: %w", s, err)
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("choices %q is not a list (enumerate takes any iterable; goeval a list)", s)
	}
	for i, x := range l {
		if n, isInt := x.(int); isInt {
			l[i] = int64(n) // documents hold Python ints as int64
		}
	}
	return l, nil
}

// musrText is leaderboard/musr's doc_to_text.
func musrText(d Doc) (any, error) {
	l, err := musrChoices(d)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for i, c := range l {
		cs, err := py.StrValue(c)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%d - %s\n", i+1, cs)
	}
	parts := make([]string, 2)
	for i, k := range []string{"narrative", "question"} {
		v, ok := d[k]
		if !ok {
			return nil, fmt.Errorf("field %q missing (KeyError in lm-eval)", k)
		}
		if parts[i], err = py.StrValue(v); err != nil {
			return nil, err
		}
	}
	return parts[0] + "\n\n" + parts[1] + "\n\n" + b.String() + "\nAnswer:", nil
}

// musrChoice is leaderboard/musr's doc_to_choice.
func musrChoice(d Doc) (any, error) {
	l, err := musrChoices(d)
	return any(l), err
}

// mmluProOptions is doc["options"], at most 26 (string.ascii_uppercase).
func mmluProOptions(d Doc) ([]any, error) {
	l, ok := d["options"].([]any)
	if ss, isStrs := d["options"].([]string); isStrs {
		l, ok = make([]any, len(ss)), true
		for i, x := range ss {
			l[i] = x
		}
	}
	if !ok {
		return nil, fmt.Errorf("field \"options\" is %s, want a list", pyKind(d["options"]))
	}
	if len(l) > 26 {
		return nil, fmt.Errorf("%d options: string.ascii_uppercase[26] (IndexError in lm-eval)", len(l))
	}
	return l, nil
}

// mmluProText is leaderboard/mmlu_pro's doc_to_text.
func mmluProText(d Doc) (any, error) {
	l, err := mmluProOptions(d)
	if err != nil {
		return nil, err
	}
	q, ok := d["question"]
	if !ok {
		return nil, fmt.Errorf("field \"question\" missing (KeyError in lm-eval)")
	}
	qs, err := py.StrValue(q)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(qs + "\n")
	for i, o := range l {
		opt, err := py.StrValue(o)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%c. %s\n", 'A'+i, opt)
	}
	return b.String() + "Answer:", nil
}

// mmluProChoice is leaderboard/mmlu_pro's doc_to_choice: A, B, … one per
// option.
func mmluProChoice(d Doc) (any, error) {
	l, err := mmluProOptions(d)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(l))
	for i := range l {
		out[i] = string(rune('A' + i))
	}
	return out, nil
}
