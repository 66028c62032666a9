package mathverify

import "strings"

// VerifyOptions are math_verify.verify's comparison settings.
type VerifyOptions struct {
	FloatRounding        int  // decimal places a Float is rounded to (6)
	Strict               bool // variables must match (x+1 vs y+1 differ)
	AllowSetRelationComp bool // a gold relation may compare with a predicted set and back
}

// DefaultVerifyOptions are verify()'s defaults.
func DefaultVerifyOptions() VerifyOptions { return VerifyOptions{FloatRounding: 6, Strict: true} }

// Verify is math_verify.verify(gold, target) with the default options:
// true when any gold answer equals any predicted one.
func Verify(gold, pred []Answer) bool { return VerifyWith(gold, pred, DefaultVerifyOptions()) }

// VerifyWith is Verify with explicit options.
func VerifyWith(gold, pred []Answer, o VerifyOptions) bool {
	for _, g := range gold {
		for _, p := range pred {
			if compareSingle(g, p, o) {
				return true
			}
		}
	}
	return false
}

// errCompare aborts one comparison where math-verify's raises (it then
// counts as not equal).
type errCompare struct{}

func compareSingle(g, p Answer, o VerifyOptions) (eq bool) {
	switch {
	case g.Expr != nil && p.Expr != nil:
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(errCompare); !ok {
					panic(r)
				}
				eq = false
			}
		}()
		return exprEq(g.Expr, p.Expr, o)
	case g.Expr == nil && p.Expr == nil:
		gs, ps := pyStrip(g.Str), pyStrip(p.Str)
		return gs != "" && ps != "" && gs == ps
	}
	return false
}

// exprEq is sympy_expr_eq.
func exprEq(gold, pred *Expr, o VerifyOptions) bool {
	if !o.Strict {
		pred = renameSymbols(pred, gold)
	}
	gAssign, pAssign := isAssignment(gold), isAssignment(pred)
	gEq, pEq := isEquation(gold), isEquation(pred)
	if gAssign {
		gold = nodeE(KEq, firstRelation(gold).Args[0], lastRelation(gold).Args[1])
	}
	if pAssign {
		pred = nodeE(KEq, firstRelation(pred).Args[0], lastRelation(pred).Args[1])
	}
	if pEq && !gEq {
		pred = lastRelation(pred).Args[1]
	} else if gAssign && !pEq {
		gold = lastRelation(gold).Args[1]
	}
	if isRelation(gold) && pred.isSet() {
		if s, ok := relationAsSet(unwrapFuncs(gold)); ok {
			gold = s
		}
	}
	if o.AllowSetRelationComp && isRelation(pred) && gold.isSet() {
		if s, ok := relationAsSet(unwrapFuncs(pred)); ok {
			pred = s
		}
	}
	if gold.isNanZoo() {
		panic(errCompare{})
	}
	if gold.Equal(pred) {
		return true
	}
	switch {
	case isRelation(gold) && isRelation(pred):
		return compareRelational(gold, pred, o)
	case gold.isSet() || gold.K == KTuple || pred.isSet() || pred.K == KTuple:
		return compareSets(gold, pred, o)
	case gold.K == KSym || pred.K == KSym:
		return compareSymbols(gold, pred)
	}
	if numericEq(gold, pred, o) {
		return true
	}
	return symbolicEq(gold, pred)
}

// compareSymbols is sympy_compare_symbols: e against E, and a symbol
// against a product of symbols spelling it ($abc$ against \text{abc}).
func compareSymbols(gold, pred *Expr) bool {
	isE := func(e *Expr) bool { return e.K == KConst && e.Name == "E" }
	if (gold.K == KSym && strings.ToLower(gold.Name) == "e" && isE(pred)) ||
		(pred.K == KSym && strings.ToLower(pred.Name) == "e" && isE(gold)) {
		return true
	}
	concat := func(m *Expr) (string, bool) {
		if m.K != KMul {
			return "", false
		}
		var b strings.Builder
		for _, a := range m.Args {
			switch {
			case isE(a):
				b.WriteString("e")
			case a.K == KSym:
				b.WriteString(a.Name)
			default:
				return "", false
			}
		}
		return b.String(), true
	}
	if gold.K == KSym {
		if s, ok := concat(pred); ok {
			return strings.ToLower(gold.Name) == strings.ToLower(s)
		}
	}
	if pred.K == KSym {
		if s, ok := concat(gold); ok {
			return strings.ToLower(pred.Name) == strings.ToLower(s)
		}
	}
	return false
}

// renameSymbols substitutes pred's free symbols by gold's, in order, when
// they are as many (verify's strict=False).
func renameSymbols(pred, gold *Expr) *Expr {
	ps, gs := pred.freeSymbols(), gold.freeSymbols()
	if len(ps) != len(gs) || len(ps) == 0 {
		return pred
	}
	return substitute(pred, ps, gs)
}

func substitute(e *Expr, from, to []*Expr) *Expr {
	if e == nil {
		return nil
	}
	for i, f := range from {
		if e.Equal(f) {
			return to[i]
		}
	}
	if len(e.Args) == 0 {
		return e
	}
	out := *e
	out.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		out.Args[i] = substitute(a, from, to)
	}
	if e.Unsorted != nil {
		out.Unsorted = make([]*Expr, len(e.Unsorted))
		for i, a := range e.Unsorted {
			out.Unsorted[i] = substitute(a, from, to)
		}
	}
	return &out
}

// unsortedArgs are And's and FiniteSet's arguments as written.
func unsortedArgs(e *Expr) []*Expr {
	if e.Unsorted != nil {
		return e.Unsorted
	}
	return e.Args
}

func isRelation(e *Expr) bool {
	if e.isRelational() {
		return true
	}
	if e.K == KAnd && len(unsortedArgs(e)) > 0 {
		for _, a := range unsortedArgs(e) {
			if !a.isRelational() {
				return false
			}
		}
		return true
	}
	return false
}

func isEquation(e *Expr) bool {
	if e.K == KEq {
		return true
	}
	if e.K == KAnd && len(unsortedArgs(e)) > 0 {
		for _, a := range unsortedArgs(e) {
			if a.K != KEq {
				return false
			}
		}
		return true
	}
	return false
}

func isAssignment(e *Expr) bool {
	if e.K == KEq && isExprOfOnlySymbols(e.Args[0]) {
		return true
	}
	if e.K == KAnd && len(unsortedArgs(e)) > 0 {
		for _, a := range unsortedArgs(e) {
			if a.K != KEq {
				return false
			}
		}
		return isExprOfOnlySymbols(unsortedArgs(e)[0].Args[0])
	}
	return false
}

func lastRelation(e *Expr) *Expr {
	if e.K == KAnd {
		u := unsortedArgs(e)
		return lastRelation(u[len(u)-1])
	}
	return e
}

func firstRelation(e *Expr) *Expr {
	if e.K == KAnd {
		return unsortedArgs(e)[0]
	}
	return e
}
