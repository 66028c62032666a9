package mathverify

import "math/big"

// sympyAuto applies what sympy evaluates on its own or in simplify before
// the comparison: x**0 is 1 (0**0 too), the conjugate of a real constant is
// itself, a Sum or Product over a short integer range is its terms.
func sympyAuto(e *Expr) *Expr {
	if len(e.Args) == 0 {
		return e
	}
	n := *e
	n.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		n.Args[i] = sympyAuto(a)
	}
	switch {
	case n.K == KPow && isExactZero(n.Args[1]):
		return intE(1)
	case n.K == KUndef && n.Name == "conjugate":
		if v, ok := constValue(n.Args[0]); ok && len(n.Args[0].freeSymbols()) == 0 && v.finite() && imag(v.c) == 0 {
			return n.Args[0]
		}
	case n.K == KUndef && (n.Name == "Sum" || n.Name == "Product") && len(n.Args) == 4:
		if x, ok := expandSum(&n); ok {
			return x
		}
	}
	return &n
}

func isExactZero(e *Expr) bool {
	if len(e.freeSymbols()) > 0 {
		return false
	}
	v, ok := constValue(e)
	return ok && v.exact != nil && v.exact.Sign() == 0
}

// maxSumTerms bounds the sums expanded (longer ones stay opaque).
const maxSumTerms = 2000

// expandSum is Sum(body, (v, lo, hi)).doit() for integer bounds.
func expandSum(e *Expr) (*Expr, bool) {
	body, v, lo, hi := e.Args[0], e.Args[1], e.Args[2], e.Args[3]
	if v.K != KSym {
		return nil, false
	}
	l, ok1 := constValue(lo)
	h, ok2 := constValue(hi)
	if !ok1 || !ok2 || l.exact == nil || h.exact == nil || !l.exact.IsInt() || !h.exact.IsInt() {
		return nil, false
	}
	a, b := l.exact.Num(), h.exact.Num()
	count := new(big.Int).Sub(b, a)
	if !count.IsInt64() || count.Int64() > maxSumTerms {
		return nil, false
	}
	k := KMul
	if e.Name == "Sum" {
		k = KAdd
	}
	if count.Sign() < 0 {
		// sympy's empty-range convention (Karr): not worth following here
		return nil, false
	}
	terms := make([]*Expr, 0, count.Int64()+1)
	for i := new(big.Int).Set(a); i.Cmp(b) <= 0; i.Add(i, big.NewInt(1)) {
		val := &Expr{K: KInt, Rat: new(big.Rat).SetInt(new(big.Int).Set(i))}
		terms = append(terms, substitute(body, []*Expr{v}, []*Expr{val}))
	}
	if len(terms) == 1 {
		return terms[0], true
	}
	return nodeE(k, terms...), true
}
