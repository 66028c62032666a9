package tasks

import (
	"math"
	"math/big"
	"strings"
)

// mathEquiv is goeval's answer equivalence for minerva_math's exact_match,
// replacing lm-eval's sympy is_equiv (its math_verify metric goes through
// metrics/mathverify). Two answers are equivalent when
//  1. they are equal strings (lm-eval's own fast path), or
//  2. hendrycks_math's strip_string makes them equal, or
//  3. both parse as plain numbers, a/b fractions or \frac{a}{b} with integer
//     or decimal parts and are equal as exact rationals.
//
// Where it differs from sympy/math_verify: no symbolic algebra (x+1 vs 1+x
// differ here), no intervals/sets/matrices reordering, no units or
// percentages conversion, no float tolerance (math_verify rounds floats),
// and no LaTeX expression evaluation (\sqrt{4} vs 2 differ here).
func mathEquiv(a, b string) bool {
	if a == b {
		return true
	}
	if hendrycksEquiv(a, b) {
		return true
	}
	ra, ok1 := parseRational(a)
	rb, ok2 := parseRational(b)
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

// parseRational parses "12", "-0.5", "3/4", "\frac{3}{4}", "-\frac34".
func parseRational(s string) (*big.Rat, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, " ", ""))
	s = replacePairs(s, "\\dfrac", "\\frac", "\\tfrac", "\\frac", "\\!", "", "{,}", "")
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	var r *big.Rat
	switch {
	case strings.HasPrefix(s, "\\frac"):
		fixed, ok := fixFracs(s)
		if !ok || !strings.HasPrefix(fixed, "\\frac{") {
			return nil, false
		}
		body := fixed[len("\\frac{"):]
		i := strings.Index(body, "}{")
		if i < 0 || !strings.HasSuffix(body, "}") {
			return nil, false
		}
		num, ok1 := plainRat(body[:i])
		den, ok2 := plainRat(body[i+2 : len(body)-1])
		if !ok1 || !ok2 || den.Sign() == 0 {
			return nil, false
		}
		r = new(big.Rat).Quo(num, den)
	case strings.Count(s, "/") == 1:
		p := strings.Split(s, "/")
		num, ok1 := plainRat(p[0])
		den, ok2 := plainRat(p[1])
		if !ok1 || !ok2 || den.Sign() == 0 {
			return nil, false
		}
		r = new(big.Rat).Quo(num, den)
	default:
		var ok bool
		if r, ok = plainRat(s); !ok {
			return nil, false
		}
	}
	if neg {
		r.Neg(r)
	}
	return r, true
}

// plainRat parses a decimal number (no exponent, no infinities).
func plainRat(s string) (*big.Rat, bool) {
	if s == "" || strings.ContainsAny(s, "eEpPxX_") {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || math.IsInf(0, 0) {
		return nil, false
	}
	return r, true
}
