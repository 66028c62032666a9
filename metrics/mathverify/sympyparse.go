package mathverify

import (
	"math/big"
	"strings"
)

// A parser for sympy's LaTeX.g4 as parse_latex runs it: the start rule
// has no EOF, so ANTLR stops after the longest prefix its prediction
// accepts (a loop iteration or an optional part is taken only when what
// follows can complete it; "1+" parses as 1, "x^" as x). That is ordered
// choice with backtracking here: each alternative is tried in the
// grammar's order and given up on a syntax error. A few tokens make
// ANTLR's first prediction stage commit to the iteration (they can follow
// nothing else): '.' in a number, '_' after a name, the relation
// operators. A syntax error after one of them fails the whole parse.

type sParseErr struct{ fatal bool }

type sParser struct {
	toks  []sTok
	pos   int
	steps int
	// first: the number being read starts its unary (postfix+ list).
	first bool
	// numLimit caps the digits of a func_normal script's number (0: none);
	// scriptDigits is how many the last unlimited one read.
	numLimit, scriptDigits int
}

// maxParseSteps bounds backtracking on pathological inputs.
const maxParseSteps = 200000

// errRelation marks a parse that ended in a relation (=, <, \le, ...):
// is_equiv's subtraction raises TypeError on it.
var errRelation = &Expr{K: KErr, Name: "relation"}

func (p *sParser) peek() sTok {
	p.steps++
	t := p.toks[p.pos]
	if t.k == stErr || p.steps > maxParseSteps {
		panic(sParseErr{fatal: true})
	}
	return t
}

func (p *sParser) is(k stKind) bool { return p.peek().k == k }

func (p *sParser) next() sTok {
	t := p.peek()
	p.pos++
	return t
}

func (p *sParser) expect(k stKind) sTok {
	if !p.is(k) {
		p.fail()
	}
	return p.next()
}

func (p *sParser) fail() { panic(sParseErr{}) }

// try runs f (an alternative, a loop iteration or an optional part); on a
// non-fatal syntax error it restores the position and reports false.
func (p *sParser) try(f func() *Expr) (e *Expr, ok bool) {
	save := p.pos
	defer func() {
		if r := recover(); r != nil {
			if pe, isPE := r.(sParseErr); isPE && !pe.fatal {
				p.pos, e, ok = save, nil, false
				return
			}
			panic(r)
		}
	}()
	return f(), true
}

// committed runs f with every syntax error inside it fatal.
func (p *sParser) committed(f func() *Expr) *Expr {
	defer func() {
		if r := recover(); r != nil {
			if _, isPE := r.(sParseErr); isPE {
				panic(sParseErr{fatal: true})
			}
			panic(r)
		}
	}()
	return f()
}

// sympyParseLatex is parse_latex(s): the expression, errRelation for a
// relation, or false where parse_latex raises.
func sympyParseLatex(s string) (e *Expr, ok bool) {
	p := &sParser{toks: sympyLex(strings.TrimSpace(s))}
	defer func() {
		if r := recover(); r != nil {
			if _, isPE := r.(sParseErr); !isPE {
				panic(r)
			}
			e, ok = nil, false
		}
	}()
	e = p.expr()
	if stIsRelOp(p.peek().k) {
		p.next()
		p.committed(p.expr)
		return errRelation, true
	}
	return e, true
}

func stIsRelOp(k stKind) bool {
	switch k {
	case stEqual, stLT, stLTE, stGT, stGTE, stNeq:
		return true
	}
	return false
}

// expr: additive (ADD | SUB) additive | mp, left-associative.
func (p *sParser) expr() *Expr {
	lhs := p.mp(false)
	for p.is(stAdd) || p.is(stSub) {
		sub := p.is(stSub)
		rhs, ok := p.try(func() *Expr { p.next(); return p.mp(false) })
		if !ok {
			break
		}
		if sub {
			rhs = negMul(rhs)
		}
		lhs = nodeE(KAdd, lhs, rhs)
	}
	return lhs
}

func negMul(e *Expr) *Expr { return nodeE(KMul, intE(-1), e) }

func stMulOp(k stKind) (mul, div bool) {
	switch k {
	case stMul, stTimes, stCdot:
		return true, false
	case stDiv, stDivCmd, stColon:
		return false, true
	}
	return false, false
}

// mp: mp (MUL | \times | \cdot | DIV | \div | COLON) mp | unary; nofunc
// selects mp_nofunc.
func (p *sParser) mp(nofunc bool) *Expr {
	lhs := p.unary(nofunc)
	for {
		_, div := stMulOp(p.peek().k)
		if m, d := stMulOp(p.peek().k); !m && !d {
			return lhs
		}
		rhs, ok := p.try(func() *Expr { p.next(); return p.unary(nofunc) })
		if !ok {
			return lhs
		}
		if div {
			rhs = nodeE(KPow, rhs, intE(-1))
		}
		lhs = nodeE(KMul, lhs, rhs)
	}
}

// unary: (ADD | SUB) unary | postfix+ (unary_nofunc: postfix postfix_nofunc*).
func (p *sParser) unary(nofunc bool) *Expr {
	switch p.peek().k {
	case stAdd:
		p.next()
		return p.unary(nofunc)
	case stSub:
		p.next()
		return negate(p.unary(nofunc))
	}
	p.first = true
	list := []*Expr{p.postfix(false)}
	for {
		e, ok := p.try(func() *Expr { p.first = false; return p.postfix(nofunc) })
		if !ok {
			break
		}
		list = append(list, e)
	}
	return postfixList(list, 0)
}

// negate is sympy's -e: a number's negative, else Mul(-1, e).
func negate(e *Expr) *Expr {
	switch e.K {
	case KInt, KRat, KFloat:
		n := *e
		n.Rat = new(big.Rat).Neg(e.Rat)
		return &n
	}
	return negMul(e)
}

// postfix: exp postfix_op*, postfix_op: BANG | eval_at.
func (p *sParser) postfix(nofunc bool) *Expr {
	e := p.exp(nofunc)
	for {
		if p.is(stBang) {
			p.next()
			if isWrt(e) {
				p.fail()
			}
			e = funcE("factorial", e)
			continue
		}
		if !p.is(stBar) {
			return e
		}
		cur := e
		r, ok := p.try(func() *Expr { return p.evalAt(cur) })
		if !ok {
			return e
		}
		e = r
	}
}

// exp: exp CARET (atom | L_BRACE expr R_BRACE) subexpr? | comp.
func (p *sParser) exp(nofunc bool) *Expr {
	e := p.comp(nofunc)
	for p.is(stCaret) {
		x, ok := p.try(func() *Expr {
			p.next()
			p.first = true // "x^2." fails the whole parse
			x := p.atomOrBraced()
			if p.is(stUnderscore) {
				p.next()
				p.committed(p.atomOrBraced)
			}
			return x
		})
		if !ok {
			break
		}
		if isWrt(e) {
			p.fail()
		}
		e = nodeE(KPow, e, x)
	}
	return e
}

// atomOrBraced: atom | L_BRACE expr R_BRACE.
func (p *sParser) atomOrBraced() *Expr {
	if p.is(stLBrace) {
		p.next()
		e := p.expr()
		p.expect(stRBrace)
		return e
	}
	return p.atom()
}

// comp: group | abs_group | func | atom | floor | ceil (comp_nofunc
// without func), the first that parses.
func (p *sParser) comp(nofunc bool) *Expr {
	alts := []func() *Expr{p.group, p.absGroup}
	if !nofunc {
		alts = append(alts, p.function)
	}
	alts = append(alts, p.atom, p.floorCeil)
	for _, f := range alts {
		if e, ok := p.try(f); ok {
			return e
		}
	}
	p.fail()
	return nil
}

var groupClose = map[stKind]stKind{stLParen: stRParen, stLBracket: stRBracket, stLBrace: stRBrace, stLBraceLit: stRBraceLit}

func (p *sParser) group() *Expr {
	closer, ok := groupClose[p.peek().k]
	if !ok {
		p.fail()
	}
	p.next()
	e := p.expr()
	p.expect(closer)
	return e
}

func (p *sParser) absGroup() *Expr {
	p.expect(stBar)
	e := p.expr()
	p.expect(stBar)
	return funcE("Abs", e)
}

func (p *sParser) floorCeil() *Expr {
	name, closer := "floor", stRFloor
	switch p.peek().k {
	case stLFloor:
	case stLCeil:
		name, closer = "ceiling", stRCeil
	default:
		p.fail()
	}
	p.next()
	e := p.expr()
	p.expect(closer)
	return funcE(name, e)
}
