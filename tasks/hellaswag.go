package tasks

import (
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// hellaswag (lm_eval/tasks/hellaswag/hellaswag.yaml + utils.py).

var bracketRe = py.MustCompile("\\[.*?\\]")

// hellaswagPreprocess is utils.preprocess: strip, " [title]" → ". ", drop
// [bracketed] artefacts, collapse double spaces once.
func hellaswagPreprocess(t string) string {
	t = py.Strip(t)
	t = strings.ReplaceAll(t, " [title]", ". ")
	t = bracketRe.Sub(t, "")
	return strings.ReplaceAll(t, "  ", " ")
}

func hellaswagProcess(d Doc) (Doc, error) {
	a, err := str(d, "ctx_a")
	if err != nil {
		return nil, err
	}
	b, err := str(d, "ctx_b")
	if err != nil {
		return nil, err
	}
	act, err := str(d, "activity_label")
	if err != nil {
		return nil, err
	}
	endings, err := strList(d["endings"], "endings")
	if err != nil {
		return nil, err
	}
	lbl, err := str(d, "label")
	if err != nil {
		return nil, err
	}
	out := Doc{}
	for k, v := range d {
		out[k] = v
	}
	out["query"] = hellaswagPreprocess(act + ": " + a + " " + py.Capitalize(b))
	choices := make([]any, len(endings))
	for i, e := range endings {
		choices[i] = hellaswagPreprocess(e)
	}
	out["choices"] = choices
	g, ok := pyInt(lbl)
	if !ok {
		return nil, errLabel(lbl)
	}
	out["gold"] = int64(g)
	return out, nil
}

func init() {
	register(&spec{
		name: "hellaswag", tags: []string{"multiple_choice"}, version: 1.0, ds: dataset{Path: "Rowan/hellaswag", Name: ""},
		trainSplit: "train", valSplit: "validation", output: MultipleChoice,
		process: hellaswagProcess, added: []string{"query", "choices", "gold"},
		text: func(d Doc) (string, error) { return str(d, "query") },
		// "{{label}}" renders the label string; all digits → an int.
		target: func(d Doc) (any, error) {
			l, err := str(d, "label")
			if err != nil {
				return nil, err
			}
			if isDigit(l) {
				g, _ := pyInt(l)
				return g, nil
			}
			return l, nil
		},
		choices: func(d Doc) ([]string, error) { return strList(d["choices"], "choices") },
		metrics: accMetrics, score: scoreMC,
	})
}
