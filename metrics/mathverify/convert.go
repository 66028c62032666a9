package mathverify

import (
	"math/big"
	"strings"
)

// The converters of latex2sympy2_extended (_Latex2Sympy.convert_*): the
// sympy tree each grammar rule becomes, unevaluated as there.

func errE() *Expr { return &Expr{K: KErr} }

func (e *Expr) isMatrix() bool { return e != nil && e.K == KMatrix }

// addFlat is add_flat: Add(evaluate=False) flattening nested Adds.
func addFlat(l, r *Expr) *Expr { return flatNode(KAdd, l, r) }

// mulFlat is mul_flat.
func mulFlat(l, r *Expr) *Expr { return flatNode(KMul, l, r) }

func flatNode(k Kind, l, r *Expr) *Expr {
	var args []*Expr
	for _, x := range []*Expr{l, r} {
		if x.K == k {
			args = append(args, x.Args...)
		} else {
			args = append(args, x)
		}
	}
	return nodeE(k, args...)
}

// isSympyNumberFunc is rh.func.is_Number: Integer, Rational, Float and the
// infinities and nan, which are Number subclasses in sympy.
func isSympyNumberFunc(e *Expr) bool {
	if e.isNumber() {
		return true
	}
	return e.K == KConst && (e.Name == "oo" || e.Name == "-oo" || e.Name == "zoo" || e.Name == "nan")
}

// neg is -e for a sympy Number (func.is_Number).
func neg(e *Expr) *Expr {
	if e.isNumber() {
		return negNumber(e)
	}
	switch e.Name {
	case "oo":
		return constE("-oo")
	case "-oo":
		return constE("oo")
	}
	return e // zoo, nan
}

func asUnaryMinus(e *Expr) *Expr {
	if e.K == KInt || e.K == KRat {
		return negNumber(e)
	}
	return nodeE(KMul, intE(-1), e)
}

func convAdd(op token, l, r *Expr) *Expr {
	if l.K == KErr || r.K == KErr {
		return errE()
	}
	if op.t == tSub {
		if l.isMatrix() || r.isMatrix() {
			return flatNode(KAdd, l, mulFlat(intE(-1), r))
		}
		if isSympyNumberFunc(r) {
			r = neg(r)
		} else {
			r = mulFlat(intE(-1), r)
		}
	}
	return addFlat(l, r)
}

func convMp(op token, l, r *Expr) *Expr {
	if l.K == KErr || r.K == KErr {
		return errE()
	}
	switch op.t {
	case tMul, tTimes, tCdot:
		return mulFlat(l, r)
	case tMod:
		if r.isMatrix() {
			return errE()
		}
		return funcE("Mod", l, r)
	}
	// DIV, \div, COLON
	if l.isMatrix() || r.isMatrix() {
		return nodeE(KMul, l, nodeE(KPow, r, intE(-1)))
	}
	if l.K == KInt && r.K == KInt {
		return rationalOf(l.Rat, r.Rat)
	}
	return nodeE(KMul, l, nodeE(KPow, r, intE(-1)))
}

// rationalOf is sympy.Rational(p, q) of two Integers (zoo, nan on q = 0).
func rationalOf(p, q *big.Rat) *Expr {
	if q.Sign() == 0 {
		if p.Sign() == 0 {
			return constE("nan")
		}
		return constE("zoo")
	}
	return ratE(new(big.Rat).Quo(p, q))
}

func convUnarySign(t tok, e *Expr) *Expr {
	if t == tAdd || e.K == KErr {
		return e
	}
	if e.isMatrix() {
		return mulFlat(intE(-1), e)
	}
	if isSympyNumberFunc(e) {
		return neg(e)
	}
	return mulFlat(intE(-1), e)
}

// convImplicitMul is convert_postfix_list's product of a postfix with the
// rest: mixed fractions (2 \frac{1}{2}, and 2 3 = 2 + 3) or a Mul.
func convImplicitMul(res, rh *Expr) *Expr {
	if res.K == KErr || rh.K == KErr {
		return errE()
	}
	if res.K == KOpaque && res.Name == "dop" {
		return &Expr{K: KOpaque, Name: "Derivative", Args: []*Expr{rh, res.Args[0]}}
	}
	if res.isMatrix() || rh.isMatrix() {
		return flatNode(KMul, res, rh)
	}
	if res.K == KInt && (rh.K == KInt || rh.K == KRat) && rh.Rat.Sign() > 0 {
		if res.Rat.Sign() < 0 {
			return ratE(new(big.Rat).Sub(res.Rat, rh.Rat))
		}
		return ratE(new(big.Rat).Add(res.Rat, rh.Rat))
	}
	return mulFlat(res, rh)
}

func convFactorial(e *Expr) *Expr {
	if e.K == KErr {
		return e
	}
	return funcE("factorial", e)
}

func convPow(base, exp *Expr) *Expr {
	if base.K == KErr || exp == nil || exp.K == KErr {
		return errE()
	}
	return nodeE(KPow, base, exp)
}

// convFrac is convert_frac without its derivative forms (d/dx, which
// become errors here).
func (p *parser) convFrac(up, lo res) *Expr {
	if d, isDiff := lex1(lo.txt, tDifferential); isDiff {
		wrt := symE(differentialVar(d.text), p.real)
		if up.txt == "d" {
			return &Expr{K: KOpaque, Name: "dop", Args: []*Expr{wrt}} // d/dx, applied to what follows
		}
		if strings.HasPrefix(up.txt, "d") {
			return &Expr{K: KOpaque, Name: "Derivative", Args: []*Expr{p.subParse(up.txt[1:]), wrt}}
		}
	}
	t, b := up.e, lo.e
	if t.K == KErr || b.K == KErr {
		return errE()
	}
	if t.isMatrix() || b.isMatrix() {
		return nodeE(KMul, t, nodeE(KPow, b, intE(-1)))
	}
	if t.K == KInt && b.K == KInt {
		return rationalOf(t.Rat, b.Rat)
	}
	return nodeE(KMul, t, nodeE(KPow, b, intE(-1)))
}

// lex1 reports whether s is exactly one token of type t.
func lex1(s string, t tok) (token, bool) {
	toks, ok := lex(s)
	if !ok || len(toks) != 2 || toks[0].t != t {
		return token{}, false
	}
	return toks[0], true
}

// convBinom is sympy.binomial(n, k): evaluated for integers.
func convBinom(n, k *Expr) *Expr {
	if n.K == KErr || k.K == KErr {
		return errE()
	}
	if n.K == KInt && k.K == KInt && n.Rat.Num().IsInt64() && k.Rat.Num().IsInt64() {
		nn, kk := n.Rat.Num().Int64(), k.Rat.Num().Int64()
		if kk < 0 || (nn >= 0 && kk > nn) {
			return intE(0)
		}
		if nn >= 0 && nn < 100000 {
			return &Expr{K: KInt, Rat: new(big.Rat).SetInt(new(big.Int).Binomial(nn, kk))}
		}
	}
	return funcE("binomial", n, k)
}

func convMatrix(rows [][]*Expr) *Expr {
	if len(rows) == 0 {
		return errE()
	}
	cols := len(rows[0])
	m := &Expr{K: KMatrix, Rows: len(rows), Cols: cols}
	for _, r := range rows {
		if len(r) != cols {
			return errE()
		}
		for _, c := range r {
			if c.K == KErr {
				return errE()
			}
		}
		m.Args = append(m.Args, r...)
	}
	return m
}

// convDet is Matrix.det() for the vmatrix environment.
func convDet(m *Expr) *Expr {
	if !m.isMatrix() {
		return errE()
	}
	return determinant(m)
}

// determinant expands a square matrix's determinant along its first row
// (sympy evaluates it; the comparisons here evaluate the expansion).
func determinant(m *Expr) *Expr {
	if m.Rows != m.Cols || m.Rows == 0 || m.Rows > 6 {
		return errE()
	}
	if m.Rows == 1 {
		return m.Args[0]
	}
	var terms []*Expr
	for j := 0; j < m.Cols; j++ {
		minor := &Expr{K: KMatrix, Rows: m.Rows - 1, Cols: m.Cols - 1}
		for i := 1; i < m.Rows; i++ {
			for k := 0; k < m.Cols; k++ {
				if k != j {
					minor.Args = append(minor.Args, m.Args[i*m.Cols+k])
				}
			}
		}
		t := nodeE(KMul, m.Args[j], determinant(minor))
		if j%2 == 1 {
			t = nodeE(KMul, intE(-1), t)
		}
		terms = append(terms, t)
	}
	return nodeE(KAdd, terms...)
}

func convSymbolTok(text string) *Expr {
	s := strings.NewReplacer("\\$", "", "\\%", "").Replace(text)
	if strings.TrimSuffix(s, "%") == "\\infty" {
		return constE("oo")
	}
	return errE() // \partial: "Unrecognized symbol"
}

// percentOf is convert_to_pct: Mul(x, UnevaluatedExpr(1/100)).
func percentOf(x *Expr) *Expr {
	return nodeE(KMul, x, nodeE(KUneval, ratE(big.NewRat(1, 100))))
}

func (p *parser) createSymbol(text string, enforceCase bool) *Expr {
	if !enforceCase {
		text = strings.ToLower(text)
	}
	return symE(text, p.real)
}

func differentialVar(text string) string {
	i := 1
	for i < len(text) && isWS(text[i]) {
		i++
	}
	return strings.TrimPrefix(text[i:], "\\")
}
