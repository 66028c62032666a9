package tasks

import (
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/metrics/mathverify"
)

// hendrycks_math and minerva_math: seven subjects each, over
// EleutherAI/hendrycks_math, plus the groups of the same names.

var mathSubsets = []struct{ task, config string }{
	{"algebra", "algebra"}, {"counting_and_prob", "counting_and_probability"}, {"geometry", "geometry"},
	{"intermediate_algebra", "intermediate_algebra"}, {"num_theory", "number_theory"},
	{"prealgebra", "prealgebra"}, {"precalc", "precalculus"},
}

// mathProcess keeps the dataset columns and sets answer (normalized with
// norm when given, as minerva does).
func mathProcess(norm func(string) string) func(Doc) (Doc, error) {
	return func(d Doc) (Doc, error) {
		sol, err := str(d, "solution")
		if err != nil {
			return nil, err
		}
		if _, err := str(d, "problem"); err != nil {
			return nil, err
		}
		a, err := boxedAnswer(sol)
		if err != nil {
			return nil, err
		}
		if norm != nil {
			a = norm(a)
		}
		out := Doc{}
		for k, v := range d {
			out[k] = v
		}
		out["answer"] = a
		return out, nil
	}
}

func init() {
	var hNames, mNames []string
	for _, sub := range mathSubsets {
		ds := dataset{Path: "EleutherAI/hendrycks_math", Name: sub.config}
		register(&spec{
			name: "hendrycks_math_" + sub.task, tags: []string{"math_word_problems"}, version: 1.0, ds: ds,
			trainSplit: "train", testSplit: "test", output: GenerateUntil,
			process: mathProcess(nil), added: []string{"answer"},
			text:      prefixed("Problem: ", "problem", "\nAnswer:"),
			target:    func(d Doc) (any, error) { return strAny(str(d, "answer")) },
			genKwargs: map[string]any{"until": []string{"Problem:"}, "do_sample": false, "temperature": 0.0},
			genKeys:   []string{"until", "do_sample", "temperature"},
			metrics:   []MetricSpec{{"exact_match", "mean", true}},
			score:     scoreHendrycksMath,
		})
		hNames = append(hNames, "hendrycks_math_"+sub.task)
		register(&spec{
			name: "minerva_math_" + sub.task, tags: []string{"math_word_problems"}, version: 3.1, ds: ds,
			trainSplit: "train", testSplit: "test", output: GenerateUntil,
			process: mathProcess(normalizeFinalAnswer), added: []string{"answer"},
			text: prefixed("Problem:\n", "problem", "\n\nSolution:"),
			// {{answer if few_shot is undefined else solution}}
			target: func(d Doc) (any, error) {
				if _, ok := d["few_shot"]; ok {
					return strAny(str(d, "solution"))
				}
				return strAny(str(d, "answer"))
			},
			numFewshot: 4, firstN: true, samples: minervaSamples(),
			genKwargs: map[string]any{"until": []string{"Problem:"}, "do_sample": false, "temperature": 0.0},
			genKeys:   []string{"until", "do_sample", "temperature"},
			metrics:   []MetricSpec{{"exact_match", "mean", true}, {"math_verify", "mean", true}},
			score:     scoreMinervaMath,
		})
		mNames = append(mNames, "minerva_math_"+sub.task)
	}
	registerGroup(Group{Name: "hendrycks_math", Subtasks: hNames, Aggregate: true, WeightBySize: true, Metrics: []string{"exact_match"}, Version: "1.0"})
	registerGroup(Group{Name: "minerva_math", Subtasks: mNames, Aggregate: true, WeightBySize: true, Metrics: []string{"exact_match", "math_verify"}, Version: "1.0"})
}

// scoreHendrycksMath: the text between the first and last "$" (or all of
// it) against the boxed answer, under strip_string.
func scoreHendrycksMath(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	gen := resps[0].Text
	ans := gen
	if first, last := strings.Index(gen, "$"), strings.LastIndex(gen, "$"); first >= 0 && last > first {
		ans = gen[first+1 : last]
	}
	sol, err := str(inst.Doc, "solution")
	if err != nil {
		return nil, err
	}
	gold, err := boxedAnswer(sol)
	em := metrics.Bool(err == nil && hendrycksEquiv(ans, gold)) // an int, as lm-eval's retval
	return map[string]SampleResult{"none": {Metrics: map[string]metrics.Value{"exact_match": em}, FilteredResps: gen}}, nil
}

var finalAnswerRe = py.MustCompile(`Final Answer: The final answer is(.*?). I hope it is correct.`)

// minervaUnnormalized is get_unnormalized_answer.
func minervaUnnormalized(text string) string {
	m := finalAnswerRe.FindAll(text + "I hope it is correct.")
	if len(m) == 0 {
		return "[invalidanswer]"
	}
	return py.Strip(m[0][0])
}

// scoreMinervaMath: exact_match compares the normalized "Final Answer"
// with the gold answer by lm-eval's is_equiv (mathverify.IsEquiv: sympy's
// parse_latex and simplify(a - b) == 0 in Go); math_verify is lm-eval's
// verify(gold=parse(doc["solution"]), target=parse(generation)) through
// metrics/mathverify (math-verify's parse and verify in Go).
func scoreMinervaMath(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	gen := resps[0].Text
	gold, err := str(inst.Doc, "answer")
	if err != nil {
		return nil, err
	}
	em := metrics.Bool(mathverify.IsEquiv(normalizeFinalAnswer(minervaUnnormalized(gen)), gold)) // ints, as lm-eval's retval
	mv := metrics.Int(0)
	if sol, err := str(inst.Doc, "solution"); err == nil {
		mv = metrics.Bool(mathverify.Verify(mathverify.Parse(sol, mathverify.DefaultConfigs()), mathverify.Parse(gen, mathverify.DefaultConfigs())))
	}
	return map[string]SampleResult{"none": {Metrics: map[string]metrics.Value{"exact_match": em, "math_verify": mv}, FilteredResps: gen}}, nil
}

// minervaSamples are utils.list_fewshot_samples (unprocessed; few_shot set).
func minervaSamples() []Doc {
	ps := [][2]string{
		{"Find the domain of the expression  $\\frac{\\sqrt{x-2}}{\\sqrt{5-x}}$.",
			"The expressions inside each square root must be non-negative. Therefore, $x-2 \\ge 0$, so $x\\ge2$, and $5 - x \\ge 0$, so $x \\le 5$. Also, the denominator cannot be equal to zero, so $5-x>0$, which gives $x<5$. Therefore, the domain of the expression is $\\boxed{[2,5)}$.\nFinal Answer: The final answer is $[2,5)$. I hope it is correct."},
		{"If $\\det \\mathbf{A} = 2$ and $\\det \\mathbf{B} = 12,$ then find $\\det (\\mathbf{A} \\mathbf{B}).$",
			"We have that $\\det (\\mathbf{A} \\mathbf{B}) = (\\det \\mathbf{A})(\\det \\mathbf{B}) = (2)(12) = \\boxed{24}.$\nFinal Answer: The final answer is $24$. I hope it is correct."},
		{"Terrell usually lifts two 20-pound weights 12 times. If he uses two 15-pound weights instead, how many times must Terrell lift them in order to lift the same total weight?",
			"If Terrell lifts two 20-pound weights 12 times, he lifts a total of $2\\cdot 12\\cdot20=480$ pounds of weight.  If he lifts two 15-pound weights instead for $n$ times, he will lift a total of $2\\cdot15\\cdot n=30n$ pounds of weight.  Equating this to 480 pounds, we can solve for $n$:\n\\begin{align*}\n30n&=480\\\\\n\\Rightarrow\\qquad n&=480/30=\\boxed{16}\n\\end{align*}\nFinal Answer: The final answer is $16$. I hope it is correct."},
		{"If the system of equations\n\n\\begin{align*}\n6x-4y&=a,\\\\\n6y-9x &=b.\n\\end{align*}has a solution $(x, y)$ where $x$ and $y$ are both nonzero,\nfind $\\frac{a}{b},$ assuming $b$ is nonzero.",
			"If we multiply the first equation by $-\\frac{3}{2}$, we obtain\n\n$$6y-9x=-\\frac{3}{2}a.$$Since we also know that $6y-9x=b$, we have\n\n$$-\\frac{3}{2}a=b\\Rightarrow\\frac{a}{b}=\\boxed{-\\frac{2}{3}}.$$\nFinal Answer: The final answer is $-\\frac{2}{3}$. I hope it is correct."},
	}
	out := make([]Doc, len(ps))
	for i, p := range ps {
		out[i] = Doc{"problem": p[0], "solution": p[1], "few_shot": "1"}
	}
	return out
}
