package mathverify

import (
	"strings"
	"testing"
)

// FuzzParse: Parse and Verify on arbitrary text never panic, and an answer
// always equals itself when its match left a non-empty fallback string.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`The answer is $\boxed{\frac{1}{2}}$.`,
		"Final Answer: The final answer is $[2,5)$. I hope it is correct.",
		`$x \in (-\infty, 3] \cup [4, \infty)$`,
		`\boxed{\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}^T}`,
		`$\sqrt[3]{2} + \log_2 8 - \sin^2 x + 2 \frac{1}{3} \% \pm 1$`,
		`$\frac{1}{0}$ and $\left( 1, 2 \right)$ or 3,000.5 percent`,
		`$\sum_{k=0}^{n} f(k) = e^{i\pi}$ \text{ cm}^2`,
		`\boxed{\frac{1}{2`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 {
			return
		}
		p := Parse(s, DefaultConfigs())
		for _, a := range p {
			if a.Expr == nil && strings.TrimSpace(a.Str) != "" && pyStrip(a.Str) != "" && !Verify(p, p) {
				t.Fatalf("Parse(%q) = %v does not verify against itself", s, p)
			}
		}
		Verify(p, Parse(strings.ToUpper(s), DefaultConfigs()))
	})
}

// FuzzIsEquiv: IsEquiv on arbitrary answers never panics and is symmetric,
// and a non-empty answer equals itself.
func FuzzIsEquiv(f *testing.F) {
	for _, s := range []string{`\frac{1}{2}`, `1+x^2`, `\log_28`, `2.55.3`, `\sum_{k=1}^{3}k`, `\sqrt[3]{8}`,
		`x_{n+1}'`, `|x|_{x=1}`, `\frac{d}{dx}x^2`, `\int_0^1x\,dx`, `f(x,y)`, `\langle x|`, `1,234.5`, `\sin^{-1}x`} {
		f.Add(s, "0.5")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 500 || len(b) > 500 {
			return
		}
		if IsEquiv(a, b) != IsEquiv(b, a) {
			t.Fatalf("IsEquiv(%q, %q) is not symmetric", a, b)
		}
		if a != "" && !IsEquiv(a, a) {
			t.Fatalf("IsEquiv(%q, itself) = false", a)
		}
	})
}
