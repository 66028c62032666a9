package tasks

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
	"github.com/goeval/goeval/metrics/mathverify"
)

// leaderboard/math (MATH-hard) and truthfulqa_mc2's process_results.

func init() {
	registerBuiltinHook("leaderboard.math.utils.process_docs", lbMathProcessDocs, "answer")
	registerBuiltinHook("leaderboard.math.utils.doc_to_text", func(d Doc) (any, error) {
		p, err := str(d, "problem")
		return "Problem:\n" + p + "\n\nSolution:", err
	})
	registerBuiltinHook("leaderboard.math.utils.list_fewshot_samples", func() ([]Doc, error) {
		out := make([]Doc, len(lbMathSamples))
		for i, ps := range lbMathSamples {
			out[i] = Doc{"problem": ps[0], "solution": ps[1], "few_shot": "1", "level": "Level 5"}
		}
		return out, nil
	})
	// exact_match is math-verify's (metrics/mathverify); exact_match_original's
	// sympy is_equiv is mathverify.IsEquiv (its 1 s timeout aside). The Go
	// function stands in only where goeval runs no Python.
	builtinHooks["leaderboard.math.utils.process_results"] = registered{fn: ResultsHook(lbMathResults), withoutPython: true}
}

const lbInvalid = "[invalidanswer]"

// lbMathProcessDocs is leaderboard/math's process_docs: the Level 5
// documents, with answer, the solution's last boxed answer
// (remove_boxed(last_boxed_only_string(solution)), "[invalidanswer]" when
// it has none). Its few_shot branch never runs (getattr on a dict).
func lbMathProcessDocs(docs []Doc) ([]Doc, error) {
	out := []Doc{}
	for i, d := range docs {
		lv, ok := d["level"]
		if !ok {
			return nil, fmt.Errorf("document %d has no field \"level\" (KeyError in lm-eval)", i)
		}
		if s, isStr := lv.(string); !isStr || s != "Level 5" {
			continue
		}
		sol, err := str(d, "solution")
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if _, ok := d["problem"]; !ok {
			return nil, fmt.Errorf("document %d has no field \"problem\" (KeyError in lm-eval)", i)
		}
		p := make(Doc, len(d)+1)
		for k, v := range d {
			p[k] = v
		}
		p["answer"] = lbRemoveBoxed(lbLastBoxed(sol))
		out = append(out, p)
	}
	return out, nil
}

// lbLastBoxed is leaderboard/math's last_boxed_only_string.
func lbLastBoxed(s string) string {
	b, ok := lastBoxedOnly(s)
	if !ok {
		return lbInvalid
	}
	return b
}

// lbRemoveBoxed is leaderboard/math's remove_boxed.
func lbRemoveBoxed(s string) string {
	a, ok := removeBoxed(s)
	if !ok {
		return lbInvalid
	}
	return a
}

// lbMathResults is leaderboard/math's process_results: exact_match is
// verify(parse(solution, [LatexExtractionConfig()]), parse(response));
// exact_match_original the Minerva answer ("Final Answer: … I hope it is
// correct.") normalised as in 2022 (lbNormalize) against the normalised
// gold answer, equal as strings or under is_equiv (mathverify.IsEquiv).
func lbMathResults(d Doc, resps []Response) (map[string]metrics.Value, error) {
	if len(resps) == 0 {
		return nil, fmt.Errorf("no response (IndexError in lm-eval)")
	}
	gen := resps[0].Text
	sol, err := str(d, "solution")
	if err != nil {
		return nil, err
	}
	gold := mathverify.Parse(sol, []mathverify.Config{mathverify.DefaultLatexConfig()})
	em := mathverify.Verify(gold, mathverify.Parse(gen, mathverify.DefaultConfigs()))
	orig := 0
	if ans, err := str(d, "answer"); err == nil { // a KeyError is caught: 0
		a := lbNormalize(minervaUnnormalized(gen))
		g := lbNormalize(ans)
		if a != lbInvalid && (py.Strip(a) == py.Strip(g) || mathverify.IsEquiv(a, g)) {
			orig = 1
		}
	}
	return map[string]metrics.Value{"exact_match": metrics.Bool(em), "exact_match_original": metrics.Int(orig)}, nil
}

var lbNormRes = func() []*py.Regexp {
	var out []*py.Regexp
	for _, p := range lbNormPatterns {
		out = append(out, py.MustCompile(p[0]))
	}
	return out
}()

var lbNormPatterns = [][2]string{
	{`(.*?)(\$)(.*?)(\$)(.*)`, `$\3$`},
	{`(\\text\{)(.*?)(\})`, `\2`},
	{`(\\textbf\{)(.*?)(\})`, `\2`},
	{`(\\overline\{)(.*?)(\})`, `\2`},
	{`(\\boxed\{)(.*)(\})`, `\2`},
	{`(frac)([^{])(.)`, `frac{\2}{\3}`},
	{`(sqrt)([^{])`, `sqrt{\2}`},
}

// lbNormalize is leaderboard/math's normalize_final_answer, the 2022
// version lm-eval keeps frozen there (minerva_math's has changed since:
// normalizeFinalAnswer): plain substitutions and removals, no word
// boundaries, and commas dropped from any answer that is digits without
// them (str.isdigit).
func lbNormalize(s string) string {
	parts := strings.Split(s, "=")
	s = replacePairs(parts[len(parts)-1], minervaSubs...)
	for _, e := range minervaRemoved {
		s = strings.ReplaceAll(s, e, "")
	}
	for i, re := range lbNormRes {
		s = re.Sub(s, lbNormPatterns[i][1])
	}
	s = strings.ReplaceAll(s, "$", "")
	if pyIsDigit(strings.ReplaceAll(s, ",", "")) {
		s = strings.ReplaceAll(s, ",", "")
	}
	return s
}

// truthfulQAMC2 is truthfulqa's process_results_mc2: the probability mass
// of the true answers, the choices' likelihoods normalised to sum to one
// (numpy's exp and pairwise sums).
func truthfulQAMC2(d Doc, resps []Response) (map[string]metrics.Value, error) {
	t, err := sub(d, "mc2_targets")
	if err != nil {
		return nil, err
	}
	labels, ok := t["labels"].([]any)
	if !ok {
		return nil, fmt.Errorf("mc2_targets.labels is %s, want a list", pyKind(t["labels"]))
	}
	if len(labels) != len(resps) {
		return nil, fmt.Errorf("%d labels for %d choices (numpy's boolean index fails in lm-eval)", len(labels), len(resps))
	}
	probs := make([]float64, len(resps))
	for i, r := range resps {
		probs[i] = math.Exp(r.LogProb)
	}
	total := metrics.NPSum(probs)
	var kept []float64
	for i, l := range labels {
		if n, ok := pyNumber(l); ok && n == 1 {
			kept = append(kept, probs[i]/total)
		}
	}
	return map[string]metrics.Value{"acc": metrics.Float(metrics.NPSum(kept))}, nil
}

// lbMathSamples are leaderboard/math's list_fewshot_samples: problem and
// solution (few_shot "1", level "Level 5").
var lbMathSamples = [][2]string{
	{"Find the domain of the expression  $\\frac{\\sqrt{x-2}}{\\sqrt{5-x}}$.}",
		"The expressions inside each square root must be non-negative. Therefore, $x-2 \\ge 0$, so $x\\ge2$, and $5 - x \\ge 0$, so $x \\le 5$. Also, the denominator cannot be equal to zero, so $5-x>0$, which gives $x<5$. Therefore, the domain of the expression is $\\boxed{[2,5)}$.\nFinal Answer: The final answer is $[2,5)$. I hope it is correct."},
	{"If $\\det \\mathbf{A} = 2$ and $\\det \\mathbf{B} = 12,$ then find $\\det (\\mathbf{A} \\mathbf{B}).$",
		"We have that $\\det (\\mathbf{A} \\mathbf{B}) = (\\det \\mathbf{A})(\\det \\mathbf{B}) = (2)(12) = \\boxed{24}.$\nFinal Answer: The final answer is $24$. I hope it is correct."},
	{"Terrell usually lifts two 20-pound weights 12 times. If he uses two 15-pound weights instead, how many times must Terrell lift them in order to lift the same total weight?",
		"If Terrell lifts two 20-pound weights 12 times, he lifts a total of $2\\cdot 12\\cdot20=480$ pounds of weight.  If he lifts two 15-pound weights instead for $n$ times, he will lift a total of $2\\cdot15\\cdot n=30n$ pounds of weight.  Equating this to 480 pounds, we can solve for $n$:\n\\begin{align*}\n30n&=480\\\n\\Rightarrow\\qquad n&=480/30=\\boxed{16}\n\\end{align*}\nFinal Answer: The final answer is $16$. I hope it is correct."},
	{"If the system of equations\n\n\\begin{align*}\n6x-4y&=a,\\\n6y-9x &=b.\n\\end{align*}has a solution $(x, y)$ where $x$ and $y$ are both nonzero,\nfind $\\frac{a}{b},$ assuming $b$ is nonzero.",
		"If we multiply the first equation by $-\\frac{3}{2}$, we obtain\n\n$$6y-9x=-\\frac{3}{2}a.$$Since we also know that $6y-9x=b$, we have\n\n$$-\\frac{3}{2}a=b\\Rightarrow\\frac{a}{b}=\\boxed{-\\frac{2}{3}}.$$\nFinal Answer: The final answer is $-\\frac{2}{3}$. I hope it is correct."},
}

// pyDigitNotNd are the characters Python's str.isdigit accepts beyond the
// decimal digits (Nd): Numeric_Type=Digit (superscripts, circled digits…),
// as Python 3.11's Unicode data has them.
var pyDigitNotNd = &unicode.RangeTable{
	R16: []unicode.Range16{{0xB2, 0xB3, 1}, {0xB9, 0xB9, 1}, {0x1369, 0x1371, 1}, {0x19DA, 0x19DA, 1},
		{0x2070, 0x2070, 1}, {0x2074, 0x2079, 1}, {0x2080, 0x2089, 1}, {0x2460, 0x2468, 1}, {0x2474, 0x247C, 1},
		{0x2488, 0x2490, 1}, {0x24EA, 0x24EA, 1}, {0x24F5, 0x24FD, 1}, {0x24FF, 0x24FF, 1}, {0x2776, 0x277E, 1},
		{0x2780, 0x2788, 1}, {0x278A, 0x2792, 1}},
	R32: []unicode.Range32{{0x10A40, 0x10A43, 1}, {0x10E60, 0x10E68, 1}, {0x11052, 0x1105A, 1}, {0x1F100, 0x1F10A, 1}},
}

// pyIsDigit is Python's str.isdigit: not empty, every character a digit.
func pyIsDigit(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && !unicode.Is(pyDigitNotNd, r) {
			return false
		}
	}
	return s != ""
}
