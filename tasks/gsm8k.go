package tasks

import (
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// gsm8k (lm_eval/tasks/gsm8k/gsm8k.yaml, gsm8k-cot.yaml).

var gsm8kEM = metrics.ExactMatchOptions{
	IgnoreCase:      true,
	RegexesToIgnore: []string{",", "\\$", "(?s).*#### ", "\\.$"},
}

const flexibleExtract = "(-?[$0-9.,]{2,})|(-?[0-9]+)"

func init() {
	gsmDS := dataset{Path: "openai/gsm8k", Name: "main"}
	register(&spec{
		name: "gsm8k", tags: []string{"math_word_problems"}, version: 3.0, ds: gsmDS,
		trainSplit: "train", fewshotSplit: "train", testSplit: "test", output: GenerateUntil,
		text: func(d Doc) (string, error) {
			q, err := str(d, "question")
			return "Question: " + q + "\nAnswer:", err
		},
		target:     func(d Doc) (any, error) { return strAny(str(d, "answer")) },
		numFewshot: 5,
		genKwargs:  map[string]any{"until": []string{"Question:", "</s>", "<|im_end|>"}, "do_sample": false, "temperature": 0.0},
		genKeys:    []string{"until", "do_sample", "temperature"},
		filters:    []string{"strict-match", "flexible-extract"},
		metrics:    []MetricSpec{{"exact_match", "mean", true}},
		score:      regexEMScorer([2]string{"#### (\\-?[0-9\\.\\,]+)", flexibleExtract}),
	})
	register(&spec{
		name: "gsm8k_cot", tags: []string{"chain_of_thought"}, version: 3.0, ds: gsmDS,
		testSplit: "test", output: GenerateUntil,
		text: func(d Doc) (string, error) {
			q, err := str(d, "question")
			return "Q: " + q + "\nA:", err
		},
		// {{answer.split('####')[-1].strip() if answer is defined else target}}
		target: func(d Doc) (any, error) {
			if _, ok := d["answer"]; ok {
				a, err := str(d, "answer")
				parts := strings.Split(a, "####")
				return py.Strip(parts[len(parts)-1]), err
			}
			return strAny(str(d, "target"))
		},
		numFewshot: 8, firstN: true, samples: gsm8kCoTSamples(),
		genKwargs: map[string]any{"do_sample": false, "until": []string{"Q:", "</s>", "<|im_end|>"}},
		genKeys:   []string{"do_sample", "until"},
		filters:   []string{"strict-match", "flexible-extract"},
		metrics:   []MetricSpec{{"exact_match", "mean", true}},
		score:     regexEMScorer([2]string{"The answer is (\\-?[0-9\\.\\,]+).", flexibleExtract}),
	})
}

func strAny(s string, err error) (any, error) { return s, err }

// regexEMScorer scores gsm8k-style tasks: two regex filters (strict with
// group_select 0, flexible with -1), take_first, exact_match.
func regexEMScorer(patterns [2]string) func(*spec, *Instance, []Response) (map[string]SampleResult, error) {
	strict, err1 := metrics.NewRegexFilter(patterns[0], 0, metrics.DefaultRegexFallback)
	flex, err2 := metrics.NewRegexFilter(patterns[1], -1, metrics.DefaultRegexFallback)
	if err1 != nil || err2 != nil {
		panic("tasks: bad built-in regex")
	}
	matcher, err := metrics.NewExactMatcher(gsm8kEM)
	if err != nil {
		panic(err)
	}
	return func(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
		gold, _ := inst.Target.(string)
		out := map[string]SampleResult{}
		for name, f := range map[string]*metrics.RegexFilter{"strict-match": strict, "flexible-extract": flex} {
			pred := f.Apply(resps[0].Text)
			em := matcher.Score(pred, gold)
			out[name] = SampleResult{Metrics: map[string]metrics.Value{"exact_match": metrics.Float(em)}, FilteredResps: pred}
		}
		return out, nil
	}
}

// gsm8kCoTSamples are gsm8k-cot.yaml's eight fixed exemplars.
func gsm8kCoTSamples() []Doc {
	qa := [][2]string{
		{"There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?",
			"There are 15 trees originally. Then there were 21 trees after some more were planted. So there must have been 21 - 15 = 6. The answer is 6."},
		{"If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the parking lot?",
			"There are originally 3 cars. 2 more cars arrive. 3 + 2 = 5. The answer is 5."},
		{"Leah had 32 chocolates and her sister had 42. If they ate 35, how many pieces do they have left in total?",
			"Originally, Leah had 32 chocolates. Her sister had 42. So in total they had 32 + 42 = 74. After eating 35, they had 74 - 35 = 39. The answer is 39."},
		{"Jason had 20 lollipops. He gave Denny some lollipops. Now Jason has 12 lollipops. How many lollipops did Jason give to Denny?",
			"Jason started with 20 lollipops. Then he had 12 after giving some to Denny. So he gave Denny 20 - 12 = 8. The answer is 8."},
		{"Shawn has five toys. For Christmas, he got two toys each from his mom and dad. How many toys does he have now?",
			"Shawn started with 5 toys. If he got 2 toys each from his mom and dad, then that is 4 more toys. 5 + 4 = 9. The answer is 9."},
		{"There were nine computers in the server room. Five more computers were installed each day, from monday to thursday. How many computers are now in the server room?",
			"There were originally 9 computers. For each of 4 days, 5 more computers were added. So 5 * 4 = 20 computers were added. 9 + 20 is 29. The answer is 29."},
		{"Michael had 58 golf balls. On tuesday, he lost 23 golf balls. On wednesday, he lost 2 more. How many golf balls did he have at the end of wednesday?",
			"Michael started with 58 golf balls. After losing 23 on tuesday, he had 58 - 23 = 35. After losing 2 more, he had 35 - 2 = 33 golf balls. The answer is 33."},
		{"Olivia has $23. She bought five bagels for $3 each. How much money does she have left?",
			"Olivia had 23 dollars. 5 bagels for 3 dollars each will be 5 x 3 = 15 dollars. So she has 23 - 15 dollars left. 23 - 15 is 8. The answer is 8."},
	}
	out := make([]Doc, len(qa))
	for i, p := range qa {
		out[i] = Doc{"question": p[0], "target": p[1]}
	}
	return out
}
