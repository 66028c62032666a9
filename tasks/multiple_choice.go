package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// Multiple-choice commonsense tasks: arc_easy, arc_challenge, piqa,
// openbookqa, boolq (hellaswag.go and winogrande.go hold the other two).

var accMetrics = []MetricSpec{{"acc", "mean", true}, {"acc_norm", "mean", true}}

func init() {
	for _, c := range []struct{ name, config string }{{"arc_easy", "ARC-Easy"}, {"arc_challenge", "ARC-Challenge"}} {
		register(&spec{
			name: c.name, tags: []string{"ai2_arc"}, version: 1.0, ds: dataset{Path: "allenai/ai2_arc", Name: c.config},
			trainSplit: "train", valSplit: "validation", testSplit: "test", output: MultipleChoice,
			text:    prefixed("Question: ", "question", "\nAnswer:"),
			target:  labelIndex("answerKey", false),
			choices: choicesText,
			metrics: accMetrics, score: scoreMC,
		})
	}
	register(&spec{
		name: "openbookqa", version: 1.0, ds: dataset{Path: "allenai/openbookqa", Name: "main"},
		trainSplit: "train", valSplit: "validation", testSplit: "test", output: MultipleChoice,
		text:    func(d Doc) (string, error) { return str(d, "question_stem") },
		target:  labelIndex("answerKey", true),
		choices: choicesText,
		metrics: accMetrics, score: scoreMC,
	})
	register(&spec{
		name: "piqa", version: 1.0, ds: dataset{Path: "baber/piqa", Name: ""},
		trainSplit: "train", valSplit: "validation", output: MultipleChoice,
		text:   prefixed("Question: ", "goal", "\nAnswer:"),
		target: func(d Doc) (any, error) { return intAny(integer(d, "label")) },
		choices: func(d Doc) ([]string, error) {
			a, err := str(d, "sol1")
			if err != nil {
				return nil, err
			}
			b, err := str(d, "sol2")
			return []string{a, b}, err
		},
		metrics: accMetrics, score: scoreMC,
	})
	register(&spec{
		name: "boolq", tags: []string{"super-glue-lm-eval-v1"}, version: 2.0, ds: dataset{Path: "aps/super_glue", Name: "boolq"},
		trainSplit: "train", valSplit: "validation", output: MultipleChoice,
		text: func(d Doc) (string, error) {
			p, err := str(d, "passage")
			if err != nil {
				return "", err
			}
			q, err := str(d, "question")
			return p + "\nQuestion: " + q + "?\nAnswer:", err
		},
		target:  func(d Doc) (any, error) { return intAny(integer(d, "label")) },
		choices: func(Doc) ([]string, error) { return []string{"no", "yes"}, nil },
		metrics: []MetricSpec{{"acc", "mean", true}}, score: scoreMC,
	})
}

func intAny(i int, err error) (any, error) { return i, err }

// prefixed renders pre + d[key] + post.
func prefixed(pre, key, post string) func(Doc) (string, error) {
	return func(d Doc) (string, error) {
		v, err := str(d, key)
		return pre + v + post, err
	}
}

// choicesText is "{{choices.text}}".
func choicesText(d Doc) ([]string, error) {
	c, err := sub(d, "choices")
	if err != nil {
		return nil, err
	}
	return strList(c["text"], "choices.text")
}

// labelIndex is "{{choices.label.index(answerKey[.lstrip()])}}".
func labelIndex(key string, lstrip bool) func(Doc) (any, error) {
	return func(d Doc) (any, error) {
		k, err := str(d, key)
		if err != nil {
			return nil, err
		}
		if lstrip {
			k = pyLstrip(k)
		}
		c, err := sub(d, "choices")
		if err != nil {
			return nil, err
		}
		labels, err := strList(c["label"], "choices.label")
		if err != nil {
			return nil, err
		}
		return intAny(index(labels, k, key))
	}
}

func pyLstrip(s string) string {
	for i, r := range s {
		if !py.IsSpace(r) {
			return s[i:]
		}
	}
	return ""
}

// scoreMC is ConfigurableTask.process_results for multiple_choice: acc and
// (when configured) acc_norm; the filter is "none".
func scoreMC(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	lls := make([]float64, len(resps))
	greedy := make([]bool, len(resps))
	filtered := make([][2]any, len(resps))
	for i, r := range resps {
		lls[i], greedy[i] = r.LogProb, r.IsGreedy
		filtered[i] = [2]any{r.LogProb, r.IsGreedy}
	}
	choices, err := s.choices(inst.Doc)
	if err != nil {
		return nil, err
	}
	gold, ok := inst.Target.(int)
	if !ok {
		return nil, fmt.Errorf("%s doc %d: gold %v is not an index", s.name, inst.DocID, inst.Target)
	}
	if gold < 0 || gold >= len(choices) {
		gold = metrics.GoldOutOfRange
	}
	sc := metrics.ScoreMultipleChoice(lls, greedy, choices, gold)
	m := map[string]metrics.Value{}
	for _, spec := range s.metrics {
		switch spec.Name {
		case "acc":
			m["acc"] = metrics.Float(sc.Acc)
		case "acc_norm":
			m["acc_norm"] = metrics.Float(sc.AccNorm)
		}
	}
	return map[string]SampleResult{"none": {Metrics: m, FilteredResps: filtered}}, nil
}
