package mathverify

import "sort"

// Set comparisons (sympy_compare_sets, sympy_deep_compare_set_and_tuple,
// sympy_compare_interval).

func compareSets(gold, pred *Expr, o VerifyOptions) bool {
	a, b := asSetOrTuple(gold), asSetOrTuple(pred)
	if a.K == KInterval && b.K == KInterval {
		return a.LOpen == b.LOpen && a.ROpen == b.ROpen && exprEq(a.Args[0], b.Args[0], o) && exprEq(a.Args[1], b.Args[1], o)
	}
	if a.Equal(b) {
		return true
	}
	if a.isSet() && b.isSet() && setsEqual(a, b) {
		return true
	}
	finiteOrTuple := func(e *Expr) bool { return e.K == KFiniteSet || e.K == KTuple }
	if finiteOrTuple(a) && finiteOrTuple(b) {
		return deepCompare(a, b, o)
	}
	if a.K == KInterval && finiteOrTuple(b) && a.LOpen && a.ROpen && len(b.Args) == 2 {
		return deepCompare(nodeE(KTuple, a.Args...), b, o)
	}
	if b.K == KInterval && finiteOrTuple(a) && b.LOpen && b.ROpen && len(a.Args) == 2 {
		return deepCompare(a, nodeE(KTuple, b.Args...), o)
	}
	return false
}

// asSetOrTuple wraps a non-set in sympy's own FiniteSet (no written order).
func asSetOrTuple(e *Expr) *Expr {
	if e.isSet() || e.K == KTuple {
		return e
	}
	return &Expr{K: KFiniteSet, Args: []*Expr{e}}
}

func deepCompare(gold, pred *Expr, o VerifyOptions) bool {
	if len(gold.Args) != len(pred.Args) {
		return false
	}
	var g, p []*Expr
	switch {
	case gold.K == KFiniteSet:
		g, p = sortedElems(gold.Args), sortedElems(pred.Args)
	case gold.K == KTuple && pred.K == KFiniteSet && pred.Unsorted != nil:
		g, p = gold.Args, pred.Unsorted
	case pred.K == KFiniteSet:
		g, p = gold.Args, sortedElems(pred.Args)
	default:
		g, p = gold.Args, pred.Args
	}
	if len(g) != len(p) {
		panic(errCompare{}) // zip(strict=True)
	}
	for i := range g {
		if !exprEq(g[i], p[i], o) {
			return false
		}
	}
	return true
}

// sortedElems orders set elements as math-verify's sort_key (evalf'd
// values; assignments by their right side).
func sortedElems(args []*Expr) []*Expr {
	out := append([]*Expr(nil), args...)
	key := func(e *Expr) *Expr {
		if isAssignment(e) {
			return lastRelation(e).Args[1]
		}
		return e
	}
	sort.SliceStable(out, func(i, j int) bool { return elemLess(key(out[i]), key(out[j])) })
	return out
}

func elemLess(a, b *Expr) bool {
	if a.K == KTuple && b.K == KTuple {
		for i := 0; i < len(a.Args) && i < len(b.Args); i++ {
			if elemLess(a.Args[i], b.Args[i]) {
				return true
			}
			if elemLess(b.Args[i], a.Args[i]) {
				return false
			}
		}
		return len(a.Args) < len(b.Args)
	}
	return sortKeyLess(a, b)
}

// setsEqual is a.symmetric_difference(b).is_empty for sets sympy can
// evaluate: real sets of numeric intervals and points, and finite sets
// whose elements compare equal.
func setsEqual(a, b *Expr) bool {
	ra, ok1 := realSetOf(a)
	rb, ok2 := realSetOf(b)
	if ok1 && ok2 {
		return ra.equal(rb)
	}
	if a.K == KFiniteSet && b.K == KFiniteSet {
		return finiteSubset(a, b) && finiteSubset(b, a)
	}
	return false
}

func finiteSubset(a, b *Expr) bool {
	for _, x := range a.Args {
		found := false
		for _, y := range b.Args {
			if elemsEqual(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// elemsEqual is sympy's Eq(x, y) as set membership evaluates it.
func elemsEqual(x, y *Expr) bool {
	if x.Equal(y) {
		return true
	}
	if x.K == KTuple && y.K == KTuple {
		if len(x.Args) != len(y.Args) {
			return false
		}
		for i := range x.Args {
			if !elemsEqual(x.Args[i], y.Args[i]) {
				return false
			}
		}
		return true
	}
	vx, ok1 := constValue(x)
	vy, ok2 := constValue(y)
	if !ok1 || !ok2 {
		return false
	}
	if vx.exact != nil && vy.exact != nil {
		return vx.exact.Cmp(vy.exact) == 0
	}
	return valuesEqual(vx, vy)
}
