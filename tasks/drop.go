package tasks

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// drop (lm_eval/tasks/drop/default.yaml + utils.py).

// dropAnswerKeys is the field order of the answer struct in
// EleutherAI/drop, which "{{ answer|join(',')}}" renders (dict keys).
var dropAnswerKeys = []string{"number", "date", "spans", "worker_id", "hit_id"}

func init() {
	register(&spec{
		name: "drop", version: 3.0, ds: dataset{Path: "EleutherAI/drop", Name: ""},
		trainSplit: "train", valSplit: "validation", output: GenerateUntil,
		process: dropProcess, added: []string{"id", "answers"},
		text: func(d Doc) (string, error) {
			p, err := str(d, "passage")
			if err != nil {
				return "", err
			}
			q, err := str(d, "question")
			return p + " " + q, err
		},
		target: func(d Doc) (any, error) {
			a, err := sub(d, "answer")
			if err != nil {
				return nil, err
			}
			var keys []string
			for _, k := range dropAnswerKeys {
				if _, ok := a[k]; ok {
					keys = append(keys, k)
				}
			}
			return strings.Join(keys, ","), nil
		},
		emptyTargetDelim: true,
		genKwargs:        map[string]any{"until": []string{"."}},
		genKeys:          []string{"until"},
		metrics:          []MetricSpec{{"em", "mean", true}, {"f1", "mean", true}},
		score:            scoreDrop,
	})
}

// dropProcess adds id = query_id and answers = get_answers(doc).
func dropProcess(d Doc) (Doc, error) {
	out := Doc{}
	for k, v := range d {
		out[k] = v
	}
	out["id"] = d["query_id"]
	ans, err := dropAnswers(d)
	if err != nil {
		return nil, err
	}
	out["answers"] = ans
	return out, nil
}

func dropAnswers(d Doc) ([]any, error) {
	a, err := sub(d, "answer")
	if err != nil {
		return nil, err
	}
	va, err := sub(d, "validated_answers")
	if err != nil {
		return nil, err
	}
	cands := []map[string]any{a}
	nums, _ := va["number"].([]any)
	dates, _ := va["date"].([]any)
	spans, _ := va["spans"].([]any)
	for i := range nums {
		if i >= len(dates) || i >= len(spans) {
			return nil, fmt.Errorf("validated_answers lists differ in length")
		}
		cands = append(cands, map[string]any{"number": nums[i], "date": dates[i], "spans": spans[i]})
	}
	var out []any
	for _, c := range cands {
		p, err := dropParse(c)
		if err != nil {
			return nil, err
		}
		dup := false
		for _, o := range out {
			dup = dup || reflect.DeepEqual(o, p)
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out, nil
}

// dropParse is parse_answer: the number, else the spans, else the date.
func dropParse(a map[string]any) ([]any, error) {
	if n, ok := a["number"].(string); ok && n != "" {
		return []any{n}, nil
	}
	if sp, ok := a["spans"].([]any); ok && len(sp) > 0 {
		return sp, nil
	}
	date, ok := a["date"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("answer.date is %T, want a struct", a["date"])
	}
	var parts []string
	for _, k := range []string{"day", "month", "year"} {
		s, ok := date[k].(string)
		if !ok {
			return nil, fmt.Errorf("answer.date.%s is %T, want a string", k, date[k])
		}
		parts = append(parts, s)
	}
	return []any{py.Strip(strings.Join(parts, " "))}, nil
}

// scoreDrop is utils.process_results on the first response.
func scoreDrop(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	ans, _ := inst.Doc["answers"].([]any)
	golds := make([][]string, len(ans))
	for i, a := range ans {
		g, err := strList(a, "answers")
		if err != nil {
			return nil, err
		}
		golds[i] = g
	}
	pred := resps[0].Text
	em, f1 := metrics.DropEMF1(pred, golds)
	return map[string]SampleResult{"none": {Metrics: map[string]metrics.Value{"em": pyMaxFromZero(em), "f1": pyMaxFromZero(f1)},
		FilteredResps: pred}}, nil
}

// pyMaxFromZero is the type of Python's running max(max_em, x) that starts
// from the int 0: the int 0 unless some x exceeded it (then a float).
func pyMaxFromZero(x float64) metrics.Value {
	if x > 0 {
		return metrics.Float(x)
	}
	return metrics.Int(0)
}
