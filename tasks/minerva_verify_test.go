package tasks

import (
	"testing"

	"github.com/goeval/goeval/metrics"
)

// TestMinervaMathVerify: minerva_math's math_verify is math-verify's
// verify(parse(solution), parse(generation)) and its exact_match lm-eval's
// sympy is_equiv (both in metrics/mathverify), which compare answers as
// expressions. The expected values are lm-eval 0.4.13's process_results.
func TestMinervaMathVerify(t *testing.T) {
	task := mustGet(t, "minerva_math_algebra")
	for _, c := range []struct {
		solution, gen string
		em, mv        metrics.Value
	}{
		{"so $\\boxed{\\frac{1}{2}}$", " Final Answer: The final answer is $0.5$. I hope it is correct.", metrics.Int(1), metrics.Int(1)},
		{"so $\\boxed{x^2+1}$", " Thus $\\boxed{1+x^2}$.\nFinal Answer: The final answer is $1+x^2$. I hope it is correct.", metrics.Int(1), metrics.Int(1)},
		{"so $\\boxed{[2,5)}$", " The domain is $\\boxed{[2, 5)}$.", metrics.Int(0), metrics.Int(1)},
		{"so $\\boxed{[2,5)}$", " The domain is $\\boxed{(2, 5]}$.", metrics.Int(0), metrics.Int(0)},
		{"so $\\boxed{3\\sqrt{2}}$", " Final Answer: The final answer is $\\sqrt{18}$. I hope it is correct.", metrics.Int(1), metrics.Int(1)},
	} {
		doc, err := mathProcess(normalizeFinalAnswer)(Doc{"problem": "p", "solution": c.solution})
		if err != nil {
			t.Fatal(err)
		}
		inst := &Instance{Doc: doc, Requests: make([]Request, 1)}
		res, err := task.Process(inst, []Response{{Text: c.gen}})
		if err != nil {
			t.Fatal(err)
		}
		m := res["none"].Metrics
		if m["exact_match"] != c.em || m["math_verify"] != c.mv {
			t.Errorf("%q / %q: exact_match %v math_verify %v, want %v %v", c.solution, c.gen, m["exact_match"], m["math_verify"], c.em, c.mv)
		}
	}
}
