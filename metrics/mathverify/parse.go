package mathverify

import "strings"

// The parser of PS.g4. ANTLR's ALL(*) prediction picks, at each decision,
// the first alternative that leads to a parse of the whole input, so the
// tree it builds is the lexicographically first derivation in alternative
// order (loops prefer one more iteration). Each rule here returns, for a
// start position, the parses it has in that order, one per end position
// (for a given span the first parse wins, since what follows depends only
// on where the rule ends); the caller keeps the first that reaches EOF.
// Conversions that raise in latex2sympy2 give a KErr tree rather than a
// failed parse, as there the tree is chosen before it is converted.

type res struct {
	e   *Expr
	end int
	txt string // the span's text where a caller needs it (getText)
}

type memoKey struct{ rule, pos int }

type parser struct {
	toks  []token
	real  bool
	memo  map[memoKey][]res
	steps int
}

// stepBudget bounds a parse's work (math-verify's 5 s timeout on parsing):
// past it the parse fails.
const stepBudget = 400000

type budgetError struct{}

func (p *parser) tick() {
	p.steps++
	if p.steps > stepBudget {
		panic(budgetError{})
	}
}

func (p *parser) at(pos int) tok { return p.toks[pos].t }

func (p *parser) text(from, to int) string {
	var b strings.Builder
	for _, t := range p.toks[from:to] {
		b.WriteString(t.text)
	}
	return b.String()
}

// dedupe keeps the first result per end position.
func dedupe(rs []res) []res {
	if len(rs) < 2 {
		return rs
	}
	out := rs[:0:0]
	seen := map[int]bool{}
	for _, r := range rs {
		if !seen[r.end] {
			seen[r.end] = true
			out = append(out, r)
		}
	}
	return out
}

const (
	ruleExpr = iota
	ruleMp
	ruleMpNofunc
	ruleUnary
	ruleUnaryNofunc
	rulePostfixList
	rulePostfixNofuncList
	rulePostfix
	rulePostfixNofunc
	ruleExp
	ruleExpNofunc
	ruleComp
	ruleCompNofunc
	ruleAtom
	ruleAtomExpr
	ruleRelation
	ruleFunc
	ruleSubexpr
	ruleSupexpr
	ruleSetAtom
	ruleElement
	ruleElementNoRel
	ruleSetRelation
	ruleMinus
	ruleUnion
	ruleInter
	ruleSetGroup
	ruleCount
)

func (p *parser) memoized(rule, pos int, f func() []res) []res {
	k := memoKey{rule, pos}
	if r, ok := p.memo[k]; ok {
		return r
	}
	p.tick()
	p.memo[k] = nil // a left-recursive re-entry finds nothing
	r := dedupe(f())
	p.memo[k] = r
	return r
}

// expect returns pos+1 when the token at pos is t, else -1.
func (p *parser) expect(pos int, t tok) int {
	if pos >= 0 && p.at(pos) == t {
		return pos + 1
	}
	return -1
}

// binaryChain parses operand (op operand)* left-associatively, preferring
// longer chains; combine builds the node for an operator token.
func (p *parser) binaryChain(first []res, isOp func(tok) bool, operand func(int) []res,
	combine func(op token, l, r *Expr) *Expr) []res {
	var out []res
	var tail func(lh *Expr, pos int)
	tail = func(lh *Expr, pos int) {
		p.tick()
		if isOp(p.at(pos)) {
			op := p.toks[pos]
			for _, r := range operand(pos + 1) {
				tail(combine(op, lh, r.e), r.end)
			}
		}
		out = append(out, res{e: lh, end: pos})
	}
	for _, f := range first {
		tail(f.e, f.end)
	}
	return out
}

func (p *parser) expr(pos int) []res {
	return p.memoized(ruleExpr, pos, func() []res {
		return p.binaryChain(p.mp(pos), func(t tok) bool { return t == tAdd || t == tSub }, p.mp, convAdd)
	})
}

func isMulOp(t tok) bool {
	switch t {
	case tMul, tTimes, tCdot, tDiv, tCmdDiv, tColon, tMod:
		return true
	}
	return false
}

func (p *parser) mp(pos int) []res {
	return p.memoized(ruleMp, pos, func() []res {
		return p.binaryChain(p.unary(pos), isMulOp, p.unary, convMp)
	})
}

func (p *parser) mpNofunc(pos int) []res {
	return p.memoized(ruleMpNofunc, pos, func() []res {
		return p.binaryChain(p.unaryNofunc(pos), isMulOp, p.unaryNofunc, convMp)
	})
}

func (p *parser) unary(pos int) []res {
	return p.memoized(ruleUnary, pos, func() []res {
		if t := p.at(pos); t == tAdd || t == tSub {
			var out []res
			for _, r := range p.unary(pos + 1) {
				out = append(out, res{e: convUnarySign(t, r.e), end: r.end})
			}
			return out
		}
		return p.postfixList(pos)
	})
}

// postfixList is postfix+, converted right to left as convert_postfix_list.
func (p *parser) postfixList(pos int) []res {
	return p.memoized(rulePostfixList, pos, func() []res {
		var out []res
		for _, f := range p.postfix(pos) {
			for _, r := range p.postfixList(f.end) {
				out = append(out, res{e: convImplicitMul(f.e, r.e), end: r.end})
			}
			out = append(out, f)
		}
		return out
	})
}

func (p *parser) unaryNofunc(pos int) []res {
	return p.memoized(ruleUnaryNofunc, pos, func() []res {
		if t := p.at(pos); t == tAdd || t == tSub {
			var out []res
			for _, r := range p.unaryNofunc(pos + 1) {
				out = append(out, res{e: convUnarySign(t, r.e), end: r.end})
			}
			return out
		}
		var out []res
		for _, f := range p.postfix(pos) {
			for _, r := range p.postfixNofuncList(f.end) {
				out = append(out, res{e: convImplicitMul(f.e, r.e), end: r.end})
			}
			out = append(out, f)
		}
		return out
	})
}

// postfixNofuncList is postfix_nofunc+ (the tail of unary_nofunc).
func (p *parser) postfixNofuncList(pos int) []res {
	return p.memoized(rulePostfixNofuncList, pos, func() []res {
		var out []res
		for _, f := range p.postfixNofunc(pos) {
			for _, r := range p.postfixNofuncList(f.end) {
				out = append(out, res{e: convImplicitMul(f.e, r.e), end: r.end})
			}
			out = append(out, f)
		}
		return out
	})
}

func (p *parser) postfix(pos int) []res {
	return p.memoized(rulePostfix, pos, func() []res { return p.postfixOps(p.exp(pos)) })
}

func (p *parser) postfixNofunc(pos int) []res {
	return p.memoized(rulePostfixNofunc, pos, func() []res { return p.postfixOps(p.expNofunc(pos)) })
}

// postfixOps applies postfix_op* (factorial, transpose, degree, eval_at).
func (p *parser) postfixOps(first []res) []res {
	var out []res
	var tail func(e *Expr, pos int)
	tail = func(e *Expr, pos int) {
		p.tick()
		switch p.at(pos) {
		case tBang:
			tail(convFactorial(e), pos+1)
		case tTranspose:
			if e.isMatrix() {
				tail(transpose(e), pos+1)
			} else {
				tail(e, pos+1) // a scalar's transpose is itself
			}
		case tDegree:
			tail(e, pos+1) // degrees are not converted
		case tBar:
			for _, r := range p.evalAt(pos + 1) {
				tail(errE(), r.end) // evaluation at a point: not supported
			}
		}
		out = append(out, res{e: e, end: pos})
	}
	for _, f := range first {
		tail(f.e, f.end)
	}
	return out
}

// evalAt parses eval_at after its BAR: sup, sub or sup then sub.
func (p *parser) evalAt(pos int) []res {
	one := func(pos int, t tok) []res {
		q := p.expect(p.expect(pos, t), tLBrace)
		if q < 0 {
			return nil
		}
		var out []res
		for _, r := range p.expr(q) {
			if p.at(r.end) == tRBrace {
				out = append(out, res{end: r.end + 1})
			}
		}
		for _, r := range p.equality(q) {
			if p.at(r.end) == tRBrace {
				out = append(out, res{end: r.end + 1})
			}
		}
		return out
	}
	var out []res
	out = append(out, one(pos, tCaret)...)
	out = append(out, one(pos, tUnderscore)...)
	for _, r := range one(pos, tCaret) {
		out = append(out, one(r.end, tUnderscore)...)
	}
	return dedupe(out)
}

// equality is expr (EQUAL | ASSIGNMENT) expr; e is Eq(lhs, rhs).
func (p *parser) equality(pos int) []res {
	var out []res
	for _, l := range p.expr(pos) {
		if t := p.at(l.end); t == tEqual || t == tAssign {
			for _, r := range p.expr(l.end + 1) {
				out = append(out, res{e: nodeE(KEq, l.e, r.e), end: r.end})
			}
		}
	}
	return dedupe(out)
}

func (p *parser) exp(pos int) []res {
	return p.memoized(ruleExp, pos, func() []res { return p.powChain(p.comp(pos)) })
}

func (p *parser) expNofunc(pos int) []res {
	return p.memoized(ruleExpNofunc, pos, func() []res { return p.powChain(p.compNofunc(pos)) })
}

// powChain is exp's left recursion: base (CARET (atom | {expr}) subexpr?)*.
func (p *parser) powChain(first []res) []res {
	var out []res
	var tail func(e *Expr, pos int)
	tail = func(e *Expr, pos int) {
		p.tick()
		if p.at(pos) == tCaret {
			for _, x := range p.powArg(pos + 1) {
				pw := convPow(e, x.e)
				for _, s := range p.subexpr(x.end) {
					tail(pw, s.end)
				}
				tail(pw, x.end)
			}
		}
		out = append(out, res{e: e, end: pos})
	}
	for _, f := range first {
		tail(f.e, f.end)
	}
	return out
}

// powArg is (atom | L_BRACE expr R_BRACE), as after CARET.
func (p *parser) powArg(pos int) []res {
	out := append([]res(nil), p.atom(pos)...)
	if p.at(pos) == tLBrace {
		for _, r := range p.expr(pos + 1) {
			if p.at(r.end) == tRBrace {
				out = append(out, res{e: r.e, end: r.end + 1})
			}
		}
	}
	return dedupe(out)
}

// parseLatex parses a whole LaTeX string (no normalization) as
// latex2sympy's parse: ok=false where it raises.
func parseLatex(src string, real bool) (*Expr, bool) {
	if !validUTF8(src) {
		return nil, false
	}
	toks, ok := lex(src)
	if !ok {
		return nil, false
	}
	p := &parser{toks: toks, real: real, memo: map[memoKey][]res{}}
	var e *Expr
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(budgetError); !ok {
					panic(r)
				}
				e = nil
			}
		}()
		e = p.math(src)
	}()
	if e == nil || e.hasKind(KErr) || hasOpaque(e, "dop") {
		return nil, false // a d/dx with nothing to apply to raises
	}
	return e, true
}

func hasOpaque(e *Expr, name string) bool {
	if e.K == KOpaque && e.Name == name {
		return true
	}
	for _, a := range e.Args {
		if hasOpaque(a, name) {
			return true
		}
	}
	return false
}
