package mathverify

import (
	"strings"
	"testing"
)

// TestVerifyBehaviours pins math-verify 0.9.0's verdicts (parse() and
// verify() with their defaults, run with lm-eval 0.4.13's pins) on pairs
// that each exercise one rule: percentages, Float rounding and equality,
// mixed numbers, sets against tuples, assignments, relations against sets
// (one way only), matrices, the fallback strings.
func TestVerifyBehaviours(t *testing.T) {
	for _, c := range []struct {
		gold, pred string
		want       bool
	}{
		{`$28\%$`, `28`, true},
		{`\boxed{29\%}`, `$29$`, false},
		{`$2$`, `$2.0$`, true},
		{`$2$`, `$2.0000001$`, false},
		{`$2.5$`, `$2.5000001$`, true},
		{`$10\pi$`, `$31.4159265$`, false},
		{`$10\pi$`, `$31.415927$`, true},
		{`$\frac{5}{2}$`, `$2 \frac{1}{2}$`, true},
		{`$5$`, `$2 3$`, true},
		{`$\frac{1}{3}$`, `$0.333333$`, true},
		{`$\frac{1}{3}$`, `$0.3333$`, false},
		{`$[2,5)$`, `$[2,5]$`, false},
		{`$(1,2)$`, `$1,2$`, true},
		{`$x^2+2x+1$`, `$(x+1)^2$`, true},
		{`$y=2x+3$`, `$2x+3$`, true},
		{`$\{1,2,3\}$`, `$3,2,1$`, true},
		{`$(1,2,3)$`, `$(3,2,1)$`, false},
		{`$\text{Evelyn}$`, `Evelyn`, false},
		{`$\begin{pmatrix}1\\2\end{pmatrix}$`, `$\begin{pmatrix}1&2\end{pmatrix}^T$`, true},
		{`$-\frac{3}{5}$`, `The answer is -3/5.`, false},
		{`$x \in [-2, 7]$`, `$-2 \le x \le 7$`, false},
		{`$-2 \le x \le 7$`, `$x \in [-2, 7]$`, true},
		{`$\sqrt{8}$`, `$2\sqrt{2}$`, true},
		{`$e$`, `$\exp(1)$`, true},
		{`$\frac{\sqrt{3}}{2}$`, `$\sin(\pi/3)$`, true},
		{`$\pm 2$`, `$-2, 2$`, true},
		{`The answer is 1,000`, `1000`, true},
		{`$\frac{1}{0}$`, `$\frac{1}{0}$`, true},
		{`$\ln 8$`, `$3\ln 2$`, true},
		{`$f(x)$`, `$f(y)$`, false},
	} {
		g, p := Parse(c.gold, DefaultConfigs()), Parse(c.pred, DefaultConfigs())
		if got := Verify(g, p); got != c.want {
			t.Errorf("Verify(%q, %q) = %v, want %v (parsed %v / %v)", c.gold, c.pred, got, c.want, g, p)
		}
	}
}

// TestParseShapes checks the parsed trees of a few answers.
func TestParseShapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`$\frac{1}{2}$`, "[1/2 str:\\frac{1}{2}]"},
		{`$2 \frac{1}{2}$`, "[5/2 str:2 \\frac{1}{2}]"},
		{`$[2,5)$`, "[Interval.R(2, 5) str:[2,5)]"},
		{`$(1,2,3)$`, "[Tuple(1, 2, 3) str:(1,2,3)]"},
		{`$x = 1, 2$`, "[Eq(x, FiniteSet(1, 2)) str:x = 1, 2]"},
		{`$28\%$`, "[28 str:28\\%]"}, // the percent literal raises; the number pattern finds 28
		{`The answer is 0.5 percent`, "[Mul(Float(0.5), Uneval(1/100)) str:0.5]"},
		{`no answer here`, "[]"},
	} {
		var parts []string
		for _, a := range Parse(c.in, DefaultConfigs()) {
			parts = append(parts, a.String())
		}
		if got := "[" + strings.Join(parts, " ") + "]"; got != c.want {
			t.Errorf("Parse(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestVerifyOptions: strict variables, rounding and set-relation comparison.
func TestVerifyOptions(t *testing.T) {
	g, p := Parse(`$f(x)$`, DefaultConfigs()), Parse(`$f(y)$`, DefaultConfigs())
	if VerifyWith(g, p, VerifyOptions{FloatRounding: 6, Strict: true}) || !VerifyWith(g, p, VerifyOptions{FloatRounding: 6}) {
		t.Error("f(x) against f(y): want unequal strict, equal otherwise")
	}
	g, p = Parse(`$\frac{1}{3}$`, DefaultConfigs()), Parse(`$0.333$`, DefaultConfigs())
	if !VerifyWith(g, p, VerifyOptions{FloatRounding: 3, Strict: true}) || VerifyWith(g, p, VerifyOptions{FloatRounding: 4, Strict: true}) {
		t.Error("1/3 against 0.333: want equal at 3 decimals only")
	}
	g, p = Parse(`$x \in [-2, 7]$`, DefaultConfigs()), Parse(`$-2 \le x \le 7$`, DefaultConfigs())
	if !VerifyWith(g, p, VerifyOptions{FloatRounding: 6, Strict: true, AllowSetRelationComp: true}) {
		t.Error("a set gold against a relation: want equal with AllowSetRelationComp")
	}
}
