package tasks

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// winogrande (lm_eval/tasks/winogrande/default.yaml +
// preprocess_winogrande.py): partial scoring. The two options fill the blank
// to make two contexts; the shared continuation is the rest of the sentence.

func winoBlank(d Doc) (string, int, error) {
	s, err := str(d, "sentence")
	if err != nil {
		return "", 0, err
	}
	i := strings.Index(s, "_")
	if i < 0 {
		return "", 0, fmt.Errorf("sentence %q has no _ blank", s)
	}
	return s, i, nil
}

func init() {
	register(&spec{
		name: "winogrande", version: 1.0, ds: dataset{Path: "allenai/winogrande", Name: "winogrande_xl"},
		trainSplit: "train", valSplit: "validation", output: MultipleChoice, multiInput: true,
		goldIdx: func(d Doc) (int, error) {
			a, err := str(d, "answer")
			switch {
			case err != nil:
				return 0, err
			case a == "1":
				return 0, nil
			case a == "2":
				return 1, nil
			}
			return 0, fmt.Errorf("answer %q is not \"1\" or \"2\"", a)
		},
		target: func(d Doc) (any, error) {
			s, i, err := winoBlank(d)
			return py.Strip(s[i+1:]), err
		},
		choices: func(d Doc) ([]string, error) {
			s, i, err := winoBlank(d)
			if err != nil {
				return nil, err
			}
			o1, err := str(d, "option1")
			if err != nil {
				return nil, err
			}
			o2, err := str(d, "option2")
			return []string{s[:i] + o1, s[:i] + o2}, err
		},
		metrics: []MetricSpec{{"acc", "mean", true}},
		score:   scoreWinogrande,
	})
}

// scoreWinogrande: acc = argmax over the contexts' continuation lls == gold.
func scoreWinogrande(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	lls := make([]float64, len(resps))
	filtered := make([][2]any, len(resps))
	for i, r := range resps {
		lls[i] = r.LogProb
		filtered[i] = [2]any{r.LogProb, r.IsGreedy}
	}
	gold, err := s.goldIdx(inst.Doc)
	if err != nil {
		return nil, err
	}
	acc := 0.0
	if metrics.Argmax(lls) == gold {
		acc = 1
	}
	return map[string]SampleResult{"none": {Metrics: map[string]metrics.Value{"acc": metrics.Float(acc)}, FilteredResps: filtered}}, nil
}
