package mathverify

import (
	"sort"
	"strings"
)

// Relations, sets, intervals and tuples as latex2sympy2 converts them.

var relKinds = map[tok]Kind{tLT: KLt, tLTE: KLe, tGT: KGt, tGTE: KGe, tEqual: KEq, tAssign: KEq, tUnequal: KNe}

// convRelation is convert_relation for one operator: chains become And.
func convRelation(op token, l, r *Expr) *Expr {
	if l.K == KErr || r.K == KErr {
		return errE()
	}
	switch op.t {
	case tApprox:
		if isExprOfOnlySymbols(l) {
			return r
		}
		return l
	case tIn:
		return errE() // "Unrecognized relation" (no matrix shapes here)
	}
	k := relKinds[op.t]
	switch {
	case l.K == KAnd:
		last := l.Args[len(l.Args)-1]
		return andOf(append(append([]*Expr(nil), l.Args...), nodeE(k, last.Args[1], r))...)
	case l.isRelational():
		return andOf(l, nodeE(k, l.Args[1], r))
	}
	return nodeE(k, l, r)
}

// andOf is latex2sympy2's And: sympy's And keeps unique args (sorted);
// Unsorted keeps them as written.
func andOf(args ...*Expr) *Expr {
	var uniq []*Expr
	for _, a := range args {
		dup := false
		for _, u := range uniq {
			if u.Equal(a) {
				dup = true
			}
		}
		if !dup {
			uniq = append(uniq, a)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return &Expr{K: KAnd, Args: uniq, Unsorted: args}
}

// isExprOfOnlySymbols is latex2sympy2's is_expr_of_only_symbols.
func isExprOfOnlySymbols(e *Expr) bool {
	if e == nil {
		return false
	}
	if e.K == KSym {
		return true
	}
	if e.K == KPow && e.Args[1].K == KInt && e.Args[1].Rat.Cmp(bigMinusOne) == 0 {
		b := e.Args[0]
		if b.K == KSym {
			return true
		}
		if len(b.Args) > 0 {
			all := true
			for _, a := range b.Args {
				all = all && isExprOfOnlySymbols(a)
			}
			if all {
				return true
			}
		}
	}
	args := e.Args
	if e.K == KAnd || e.K == KFiniteSet {
		args = e.Args
	}
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		if !isExprOfOnlySymbols(a) {
			return false
		}
	}
	return true
}

func convSetLiteral(text string) *Expr {
	names := map[string]string{"N": "Naturals", "ℕ": "Naturals", "Z": "Integers", "ℤ": "Integers",
		"Q": "Rationals", "ℚ": "Rationals", "R": "Reals", "ℝ": "Reals", "C": "Complexes", "ℂ": "Complexes"}
	key := strings.TrimSuffix(strings.TrimPrefix(text, "\\mathbb{"), "}")
	if n, ok := names[key]; ok {
		return &Expr{K: KNamedSet, Name: n}
	}
	switch text {
	case "\\emptyset", "∅", "\\{\\}", "\\lbrace\\rbrace":
		return &Expr{K: KEmpty}
	}
	return errE() // primes: "Unrecognized literal set"
}

// orderedTuple is convert_ordered_tuple (a one-element tuple is the element).
func orderedTuple(groups *Expr) *Expr {
	if len(groups.Args) == 1 && len(groups.Args[0].Args) == 1 {
		return groups.Args[0].Args[0]
	}
	var all []*Expr
	for _, g := range groups.Args {
		all = append(all, g.Args...)
	}
	return tupleOf(all...)
}

func tupleOf(args ...*Expr) *Expr {
	for _, a := range args {
		if a.K == KErr {
			return errE()
		}
	}
	return nodeE(KTuple, args...)
}

// finiteSetOf is convert_finite_set: \boxed{...} becomes a set or the one
// element; braces always a FiniteSet.
func finiteSetOf(groups *Expr, boxed bool) *Expr {
	if boxed {
		return elementsToSetOrTuple(groups)
	}
	var all []*Expr
	for _, g := range groups.Args {
		all = append(all, g.Args...)
	}
	return finiteSet(all...)
}

// elementsToSetOrTuple is convert_elements_to_set_or_tuple.
func elementsToSetOrTuple(groups *Expr) *Expr {
	gs := groups.Args
	if len(gs) == 1 {
		if len(gs[0].Args) == 1 {
			return gs[0].Args[0]
		}
		return finiteSet(gs[0].Args...)
	}
	single := true
	for _, g := range gs {
		single = single && len(g.Args) == 1
	}
	var items []*Expr
	for _, g := range gs {
		if single {
			items = append(items, g.Args[0])
		} else {
			items = append(items, tupleOf(g.Args...))
		}
	}
	return finiteSet(items...)
}

// finiteSet is latex2sympy2's FiniteSet: duplicates dropped, args sorted,
// the written order kept in Unsorted; no args is the EmptySet.
func finiteSet(args ...*Expr) *Expr {
	for _, a := range args {
		if a.K == KErr {
			return errE()
		}
	}
	if len(args) == 0 {
		return &Expr{K: KEmpty}
	}
	var uniq []*Expr
	for _, a := range args {
		dup := false
		for _, u := range uniq {
			if u.Equal(a) {
				dup = true
			}
		}
		if !dup {
			uniq = append(uniq, a)
		}
	}
	sorted := append([]*Expr(nil), uniq...)
	sort.SliceStable(sorted, func(i, j int) bool { return sortKeyLess(sorted[i], sorted[j]) })
	return &Expr{K: KFiniteSet, Args: sorted, Unsorted: args}
}

func tupleToSet(e *Expr) *Expr {
	if e.K == KTuple {
		return finiteSet(e.Args...)
	}
	return e
}

// convInterval is convert_interval: an empty interval of two numbers is a
// Tuple; sympy.Interval then evaluates (a point, empty, infinite ends open).
func convInterval(a, b *Expr, lopen, ropen bool) *Expr {
	if a.K == KErr || b.K == KErr {
		return errE()
	}
	if c, ok := compareReal(b, a); ok {
		if (lopen && ropen && c <= 0) || (!lopen && !ropen && c < 0) {
			return tupleOf(a, b)
		}
	}
	if !realValued(a) || !realValued(b) {
		return errE() // "Non-real intervals are not supported"
	}
	if c, ok := compareReal(b, a); ok {
		if c < 0 {
			return &Expr{K: KEmpty}
		}
		if c == 0 {
			if lopen || ropen {
				return &Expr{K: KEmpty}
			}
			return finiteSet(a)
		}
	}
	if a.K == KConst && (a.Name == "-oo" || a.Name == "oo") {
		lopen = true
	}
	if b.K == KConst && (b.Name == "oo" || b.Name == "-oo") {
		ropen = true
	}
	return &Expr{K: KInterval, Args: []*Expr{a, b}, LOpen: lopen, ROpen: ropen}
}
