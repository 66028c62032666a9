package mathverify

import (
	"math/big"
	"strings"
)

// func: func_normal with optional sub/superscripts and an argument in
// parentheses or not; f(args) for a name; \int, \sqrt, \overline, \sum,
// \prod, \lim.
func (p *sParser) function() *Expr {
	t := p.peek()
	switch t.k {
	case stFunc:
		return p.funcNormal()
	case stLetter, stSymbol:
		p.next()
		name := p.nameSuffix(strings.TrimPrefix(t.text, `\`))
		p.expect(stLParen)
		args := []*Expr{p.expr()}
		for p.is(stComma) {
			p.next()
			args = append(args, p.expr())
		}
		p.expect(stRParen)
		return &Expr{K: KUndef, Name: name, Args: args}
	case stSqrt:
		p.next()
		var root *Expr
		if p.is(stLBracket) {
			if r, ok := p.try(func() *Expr { p.next(); r := p.expr(); p.expect(stRBracket); return r }); ok {
				root = r
			}
		}
		base := p.braced()
		if root == nil {
			return nodeE(KPow, base, ratE(big.NewRat(1, 2)))
		}
		return nodeE(KPow, base, nodeE(KPow, root, intE(-1)))
	case stOverline:
		p.next()
		return &Expr{K: KUndef, Name: "conjugate", Args: []*Expr{p.braced()}}
	case stInt, stSum, stProd, stLim:
		return p.opaqueFunc()
	}
	p.fail()
	return nil
}

var trigNames = map[string]bool{"sin": true, "cos": true, "tan": true, "csc": true, "sec": true, "cot": true,
	"sinh": true, "cosh": true, "tanh": true}

// funcNormal is convert_func for func_normal. ANTLR's prediction reads a
// digit script as short as the argument needs (\log_28 is log_2(8)): the
// script's number is retried with fewer digits while the argument fails.
func (p *sParser) funcNormal() *Expr {
	start := p.pos
	p.numLimit = 0
	if e, ok := p.try(p.funcNormalOnce); ok {
		return e
	}
	for lim := p.scriptDigits - 1; lim >= 1; lim-- {
		p.pos, p.numLimit = start, lim
		if e, ok := p.try(p.funcNormalOnce); ok {
			p.numLimit = 0
			return e
		}
	}
	p.numLimit = 0
	p.fail()
	return nil
}

// scriptAtom is a func_normal's script: a number there reads at most
// numLimit digits when that is set.
func (p *sParser) scriptAtom() *Expr {
	if !p.is(stDigit) {
		return p.atomOrBraced()
	}
	if p.numLimit == 0 {
		start := p.pos
		e := p.number()
		p.scriptDigits = 0
		for _, t := range p.toks[start:p.pos] {
			if t.k != stDigit {
				break
			}
			p.scriptDigits++
		}
		return e
	}
	var b strings.Builder
	for n := 0; p.is(stDigit) && n < p.numLimit; n++ {
		b.WriteString(p.next().text)
	}
	v, _ := new(big.Int).SetString(b.String(), 10)
	return &Expr{K: KInt, Rat: new(big.Rat).SetInt(v)}
}

func (p *sParser) funcNormalOnce() *Expr {
	name := strings.TrimPrefix(p.next().text, `\`)
	var sub, sup *Expr
	if p.is(stUnderscore) {
		p.next()
		sub = p.committed(p.scriptAtom)
		sup = p.optSup()
	} else if sup = p.optSup(); sup != nil && p.is(stUnderscore) {
		p.next()
		sub = p.committed(p.scriptAtom)
	}
	arg, ok := p.try(func() *Expr {
		p.expect(stLParen)
		a := p.expr()
		for p.is(stComma) { // func_arg: expr (',' func_arg)?; only the first counts
			p.next()
			p.expr()
		}
		p.expect(stRParen)
		return a
	})
	if !ok {
		arg = p.mp(true)
	}
	var e *Expr
	switch {
	case strings.HasPrefix(name, "arc"):
		e = funcE("a"+name[3:], arg)
	case name == "arsinh" || name == "arcosh" || name == "artanh":
		e = funcE("a"+name[2:], arg)
	case name == "exp":
		e = funcE("exp", arg)
	case name == "log" || name == "lg" || name == "ln":
		base := constE("E")
		if sub != nil {
			base = sub
		} else if name == "lg" {
			base = intE(10)
		}
		e = funcE("log", arg, base)
	}
	pow := true
	if trigNames[name] {
		if sup != nil && sup.K == KInt && sup.Rat.Cmp(bigMinusOne) == 0 {
			name, pow = "a"+name, false
		}
		e = funcE(name, arg)
	}
	if sup != nil && pow && !(sup.isNumber() && sup.Rat.Sign() == 0) {
		e = nodeE(KPow, e, sup)
	}
	return e
}

// optSup: supexpr?, given up when what follows the caret is no atom.
func (p *sParser) optSup() *Expr {
	if !p.is(stCaret) {
		return nil
	}
	e, _ := p.try(func() *Expr { p.next(); return p.scriptAtom() })
	return e
}

// opaqueFunc parses \int, \sum, \prod and \lim: a sum or product is kept
// with its parts (sympyAuto expands one over a short integer range, as
// simplify does), a definite integral is evaluated numerically (simplify
// computes it), an indefinite one or a limit is compared by its tokens
// only.
func (p *sParser) opaqueFunc() *Expr {
	t := p.next()
	start := p.pos
	switch t.k {
	case stInt:
		if e := p.integral(); e != nil {
			return e
		}
	case stSum, stProd:
		var v, lo, hi *Expr
		if p.is(stUnderscore) {
			v, lo = p.subEq()
			hi = p.supOnly()
		} else {
			hi = p.supOnly()
			v, lo = p.subEq()
		}
		name := "Sum"
		if t.k == stProd {
			name = "Product"
		}
		return &Expr{K: KUndef, Name: name, Args: []*Expr{p.mp(false), v, lo, hi}}
	case stLim:
		p.limit()
	}
	var b strings.Builder
	b.WriteString(t.text)
	for _, tk := range p.toks[start:p.pos] {
		b.WriteString(" " + tk.text)
	}
	return &Expr{K: KUndef, Name: b.String()}
}

func (p *sParser) supOnly() *Expr {
	p.expect(stCaret)
	return p.atomOrBraced()
}

// subEq: UNDERSCORE L_BRACE expr EQUAL expr R_BRACE.
func (p *sParser) subEq() (lhs, rhs *Expr) {
	p.expect(stUnderscore)
	p.expect(stLBrace)
	lhs = p.expr()
	p.expect(stEqual)
	rhs = p.expr()
	p.expect(stRBrace)
	return lhs, rhs
}

// evalAt: BAR (eval_at_sup | eval_at_sub | eval_at_sup eval_at_sub), as
// do_subs: an equality substitutes its left side by its right side, an
// expression with one symbol that symbol by the expression.
func (p *sParser) evalAt(e *Expr) *Expr {
	p.expect(stBar)
	var sup, sub *Expr
	if p.is(stCaret) {
		p.next()
		sup = p.evalAtBody(e)
		if p.is(stUnderscore) {
			if s, ok := p.try(func() *Expr { p.next(); return p.evalAtBody(e) }); ok {
				sub = s
			}
		}
	} else {
		p.expect(stUnderscore)
		sub = p.evalAtBody(e)
	}
	switch {
	case sup != nil && sub != nil:
		return nodeE(KAdd, sup, negMul(sub))
	case sup != nil:
		return sup
	}
	return sub
}

func (p *sParser) evalAtBody(e *Expr) *Expr {
	p.expect(stLBrace)
	lhs := p.expr()
	if p.is(stEqual) {
		p.next()
		rhs := p.expr()
		p.expect(stRBrace)
		return substitute(e, []*Expr{lhs}, []*Expr{rhs})
	}
	p.expect(stRBrace)
	syms := lhs.freeSymbols()
	if len(syms) == 0 {
		return e
	}
	return substitute(e, syms[:1], []*Expr{lhs})
}
