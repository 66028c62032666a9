package mathverify

import (
	"math/big"
)

// Relations: sympy_compare_relational and Relational.as_set.

var inverseRel = map[Kind]Kind{KGe: KLe, KLe: KGe, KGt: KLt, KLt: KGt, KEq: KEq}

func diffE(a, b *Expr) *Expr { return nodeE(KAdd, a, nodeE(KMul, intE(-1), b)) }

// compareRelational is sympy_compare_relational.
func compareRelational(gold, pred *Expr, o VerifyOptions) bool {
	if gold.K == KAnd && pred.K == KAnd {
		g, p := unsortedArgs(gold), unsortedArgs(pred)
		if len(g) != len(p) {
			panic(errCompare{}) // zip(strict=True)
		}
		for i := range g {
			if !compareRelational(g[i], p[i], o) {
				return false
			}
		}
		return true
	}
	if !gold.isRelational() || !pred.isRelational() {
		return false
	}
	gd := diffE(gold.Args[0], gold.Args[1])
	if gold.K == pred.K && safeExprEq(gd, diffE(pred.Args[0], pred.Args[1]), o) {
		return true
	}
	inv, ok := inverseRel[gold.K]
	if !ok {
		panic(errCompare{}) // INVERSE_RELATIONS has no Ne: KeyError
	}
	if inv == pred.K && safeExprEq(gd, diffE(pred.Args[1], pred.Args[0]), o) {
		return true
	}
	return solveAndCompare(gold, pred)
}

// safeExprEq is exprEq inside a try/except: errors count as not equal.
func safeExprEq(a, b *Expr, o VerifyOptions) (eq bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errCompare); !ok {
				panic(r)
			}
			eq = false
		}
	}()
	return exprEq(a, b, o)
}

// solveAndCompare approximates sympy_solve_and_compare: two equations in the
// same symbols agree when one side-difference is a constant multiple of the
// other (the same solutions, for the linear equations answers hold).
// solve() on an inequality with its symbols passed as a set raises in
// sympy, so inequalities compare only by their sides (compareRelational).
func solveAndCompare(gold, pred *Expr) bool {
	gs, ps := gold.freeSymbols(), pred.freeSymbols()
	if len(gs) == 0 || !sameSymbols(gs, ps) {
		return false
	}
	gd, _, okG := normalizedDiff(gold)
	pd, _, okP := normalizedDiff(pred)
	if !okG || !okP || !evaluable(gd) || !evaluable(pd) {
		return false
	}
	if gold.K != KEq || pred.K != KEq {
		return false
	}
	_, ok := proportional(gd, pd, gs)
	return ok
}

func sameSymbols(a, b []*Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x.Equal(y)
		}
		if !found {
			return false
		}
	}
	return true
}

// normalizedDiff writes a relation as d (op) 0 with op one of =, <, ≤:
// the difference and whether it is strict.
func normalizedDiff(r *Expr) (*Expr, bool, bool) {
	l, rr := r.Args[0], r.Args[1]
	switch r.K {
	case KEq:
		return diffE(l, rr), false, true
	case KLt:
		return diffE(l, rr), true, true
	case KLe:
		return diffE(l, rr), false, true
	case KGt:
		return diffE(rr, l), true, true
	case KGe:
		return diffE(rr, l), false, true
	}
	return nil, false, false
}

// proportional finds k with a = k·b at every sample point.
func proportional(a, b *Expr, syms []*Expr) (float64, bool) {
	var k float64
	have := false
	ok := sampledEqual(a, b, syms, func(x, y num) bool {
		if cmplxAbs(y.c) < 1e-12 {
			return cmplxAbs(x.c) < 1e-12
		}
		r := x.c / y.c
		if imagAbs(r) > 1e-9 || realAbs(r) < 1e-12 {
			return false
		}
		if !have {
			k, have = real(r), true
			return true
		}
		return realAbs(complex(real(r)-k, 0)) <= 1e-9*maxf(1, realAbs(complex(k, 0)))
	})
	return k, ok && have
}

// relationAsSet is unwrap_fcs(rel).as_set() for relations in one symbol
// that are linear in it (others raise or are kept as they are).
func relationAsSet(rel *Expr) (*Expr, bool) {
	if rel.K == KAnd {
		var acc *Expr
		for _, a := range rel.Args {
			s, ok := relationAsSet(a)
			if !ok {
				return nil, false
			}
			if acc == nil {
				acc = s
			} else {
				acc = nodeE(KInter, acc, s)
			}
		}
		if acc == nil {
			return nil, false
		}
		if r, ok := realSetOf(acc); ok {
			return realSetExpr(r), true
		}
		return nil, false
	}
	syms := rel.freeSymbols()
	if len(syms) != 1 || !rel.isRelational() {
		return nil, false
	}
	d, strict, ok := normalizedDiff(rel)
	if rel.K == KNe {
		d, ok = diffE(rel.Args[0], rel.Args[1]), true
	}
	if !ok {
		return nil, false
	}
	c, root, ok := linearRoot(d, syms[0])
	if !ok {
		if !evaluable(d) {
			return nil, false
		}
		s, ok := numericSolveSet(d, syms[0], rel.K, strict)
		if !ok {
			return nil, false
		}
		return realSetExpr(s), true
	}
	pt := ratE(root)
	switch {
	case rel.K == KEq:
		return finiteSet(pt), true
	case rel.K == KNe:
		return nodeE(KUnion, &Expr{K: KInterval, Args: []*Expr{constE("-oo"), pt}, LOpen: true, ROpen: true},
			&Expr{K: KInterval, Args: []*Expr{pt, constE("oo")}, LOpen: true, ROpen: true}), true
	case c > 0: // x < root
		return &Expr{K: KInterval, Args: []*Expr{constE("-oo"), pt}, LOpen: true, ROpen: strict}, true
	default: // x > root
		return &Expr{K: KInterval, Args: []*Expr{pt, constE("oo")}, LOpen: strict, ROpen: true}, true
	}
}

// linearRoot: d = c·x + e exactly (rational c ≠ 0, e); returns sign of c
// and the root -e/c.
func linearRoot(d, x *Expr) (int, *big.Rat, bool) {
	at := func(v int64) (*big.Rat, bool) {
		n, ok := evalNum(d, env{symKey(x): complex(float64(v), 0)})
		if !ok || n.exact == nil {
			// symbols evaluate as floats: retry exactly by substitution
			e := substitute(d, []*Expr{x}, []*Expr{intE(v)})
			n, ok = constValue(e)
			if !ok || n.exact == nil {
				return nil, false
			}
		}
		return n.exact, true
	}
	f0, ok0 := at(0)
	f1, ok1 := at(1)
	if !ok0 || !ok1 {
		return 0, nil, false
	}
	c := new(big.Rat).Sub(f1, f0)
	if c.Sign() == 0 {
		return 0, nil, false
	}
	for _, t := range []int64{-7, -3, -1, 2, 5} {
		ft, ok := at(t)
		want := new(big.Rat).Add(f0, new(big.Rat).Mul(c, big.NewRat(t, 1)))
		if !ok || ft.Cmp(want) != 0 {
			return 0, nil, false
		}
	}
	return c.Sign(), new(big.Rat).Neg(new(big.Rat).Quo(f0, c)), true
}

// realSetExpr turns a real set back into sympy's form.
func realSetExpr(s realSet) *Expr {
	var parts []*Expr
	for _, iv := range s {
		if iv.lo.cmp(iv.hi) == 0 && iv.lo.ex != nil {
			parts = append(parts, finiteSet(ratE(iv.lo.ex)))
			continue
		}
		parts = append(parts, &Expr{K: KInterval, Args: []*Expr{endpointExpr(iv.lo), endpointExpr(iv.hi)}, LOpen: iv.lopen, ROpen: iv.ropen})
	}
	switch len(parts) {
	case 0:
		return &Expr{K: KEmpty}
	case 1:
		return parts[0]
	}
	return nodeE(KUnion, parts...)
}

func endpointExpr(p endpoint) *Expr {
	switch {
	case p.inf > 0:
		return constE("oo")
	case p.inf < 0:
		return constE("-oo")
	case p.ex != nil:
		return ratE(p.ex)
	}
	return floatFromRat(new(big.Rat).SetFloat64(p.v), 53)
}
