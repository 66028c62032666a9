package mathverify

import "regexp"

// PS.g4's top rule and its set rules: math: (set_elements_relation |
// set_elements | set_relation) EOF, converted as _Latex2Sympy.parse.

var commaNumberRe = regexp.MustCompile(`^\s*-?\d{1,3}(,\d{3})+(\.\d+)?\s*$`)

func (p *parser) math(src string) *Expr {
	eof := func(rs []res) *Expr {
		for _, r := range rs {
			if p.at(r.end) == tEOF {
				return r.e
			}
		}
		return nil
	}
	if e := eof(p.setElementsRelation(0)); e != nil {
		return e
	}
	for _, r := range p.semicolonElements(0, false) {
		if p.at(r.end) == tEOF {
			if commaNumberRe.MatchString(src) {
				return convertNumber(src)
			}
			return elementsToSetOrTuple(r.e)
		}
	}
	return eof(p.setRelation(0))
}

// semicolonElements parses comma_elements (; comma_elements)*; e is a
// Tuple of Tuples (the element lists, flattened per comma_elements).
func (p *parser) semicolonElements(pos int, noRel bool) []res {
	var out []res
	var groups func(acc []*Expr, pos int)
	groups = func(acc []*Expr, pos int) {
		p.tick()
		for _, r := range p.commaElements(pos, noRel) {
			next := append(append([]*Expr(nil), acc...), r.e)
			if p.at(r.end) == tSemicolon {
				groups(next, r.end+1)
			}
			out = append(out, res{e: nodeE(KTuple, next...), end: r.end})
		}
	}
	groups(nil, pos)
	return dedupe(out)
}

func (p *parser) commaElements(pos int, noRel bool) []res {
	var out []res
	var elems func(acc []*Expr, pos int)
	elems = func(acc []*Expr, pos int) {
		p.tick()
		for _, r := range p.element(pos, noRel) {
			next := append(append([]*Expr(nil), acc...), r.e.Args...)
			if p.at(r.end) == tComma {
				elems(next, r.end+1)
			}
			out = append(out, res{e: nodeE(KTuple, next...), end: r.end})
		}
	}
	elems(nil, pos)
	return dedupe(out)
}

// element parses plus_minus_expr | set_atom | relation (expr with noRel);
// e is a Tuple of the values it stands for (± gives two).
func (p *parser) element(pos int, noRel bool) []res {
	rule := ruleElement
	if noRel {
		rule = ruleElementNoRel
	}
	return p.memoized(rule, pos, func() []res {
		var out []res
		for _, l := range p.expr(pos) {
			if p.at(l.end) == tPlusMinus {
				for _, r := range p.expr(l.end + 1) {
					out = append(out, res{e: nodeE(KTuple, addFlat(l.e, r.e), addFlat(l.e, asUnaryMinus(r.e))), end: r.end})
				}
			}
		}
		if p.at(pos) == tPlusMinus {
			for _, r := range p.expr(pos + 1) {
				out = append(out, res{e: nodeE(KTuple, asUnaryMinus(r.e), r.e), end: r.end})
			}
		}
		for _, r := range p.setAtom(pos) {
			out = append(out, res{e: nodeE(KTuple, r.e), end: r.end})
		}
		inner := p.relation
		if noRel {
			inner = p.expr
		}
		for _, r := range inner(pos) {
			out = append(out, res{e: nodeE(KTuple, r.e), end: r.end})
		}
		return out
	})
}

func isRelOp(t tok) bool {
	switch t {
	case tIn, tAssign, tEqual, tApprox, tLT, tLTE, tGT, tGTE, tUnequal:
		return true
	}
	return false
}

func (p *parser) relation(pos int) []res {
	return p.memoized(ruleRelation, pos, func() []res {
		return p.binaryChain(p.expr(pos), isRelOp, p.expr, convRelation)
	})
}

func (p *parser) setAtom(pos int) []res {
	return p.memoized(ruleSetAtom, pos, func() []res {
		var out []res
		out = append(out, p.interval(pos)...)
		if t := p.toks[pos]; t.t == tSetLiteral {
			out = append(out, res{e: convSetLiteral(t.text), end: pos + 1})
		}
		if p.at(pos) == tLBrace && p.at(pos+1) == tRBrace {
			out = append(out, res{e: &Expr{K: KEmpty}, end: pos + 2})
		}
		for _, pr := range [][2]tok{{tLParen, tRParen}, {tLParenVis, tRParenVis}, {tLBracket, tRBracket}} {
			if p.at(pos) != pr[0] {
				continue
			}
			for _, r := range p.semicolonElements(pos+1, false) {
				if p.at(r.end) == pr[1] {
					out = append(out, res{e: orderedTuple(r.e), end: r.end + 1})
				}
			}
		}
		for _, pr := range [][3]tok{{tLBrace, tRBrace, 0}, {tLBraceVis, tRBraceVis, 0}, {tBoxed, tRBrace, 1}} {
			q := pos
			if pr[2] == 1 {
				q = p.expect(pos, tBoxed)
				if q < 0 || p.at(q) != tLBrace {
					continue
				}
			} else if p.at(pos) != pr[0] {
				continue
			}
			for _, r := range p.semicolonElements(q+1, false) {
				if p.at(r.end) == pr[1] {
					out = append(out, res{e: finiteSetOf(r.e, pr[2] == 1), end: r.end + 1})
				}
			}
		}
		return out
	})
}

func (p *parser) interval(pos int) []res {
	var out []res
	lo := p.at(pos)
	switch lo {
	case tLBracket, tLParen, tLParenVis, tLBrack, tLGroup:
	default:
		return nil
	}
	for _, a := range p.expr(pos + 1) {
		if p.at(a.end) != tComma {
			continue
		}
		for _, b := range p.expr(a.end + 1) {
			switch hi := p.at(b.end); hi {
			case tRBracket, tRParen, tRParenVis, tRBrack, tRGroup:
				lopen := lo == tLParen || lo == tLGroup || lo == tLParenVis
				ropen := hi == tRParen || hi == tRGroup || hi == tRParenVis
				out = append(out, res{e: convInterval(a.e, b.e, lopen, ropen), end: b.end + 1})
			}
		}
	}
	return out
}

// setElementsRelation: atom_expr_list (IN | ASSIGNMENT) semicolon_elements_no_relation.
func (p *parser) setElementsRelation(pos int) []res {
	var out []res
	for _, l := range p.atomExprList(pos) {
		if t := p.at(l.end); t == tIn || t == tAssign {
			for _, r := range p.semicolonElements(l.end+1, true) {
				out = append(out, res{e: nodeE(KEq, l.e, elementsToSetOrTuple(r.e)), end: r.end})
			}
		}
	}
	return out
}

// atomExprList: ( atom_expr (, atom_expr)* ) | atom_expr.
func (p *parser) atomExprList(pos int) []res {
	var out []res
	if p.at(pos) == tLParen {
		var items func(acc []*Expr, pos int)
		items = func(acc []*Expr, pos int) {
			for _, r := range p.atomExpr(pos, true) {
				next := append(append([]*Expr(nil), acc...), r.e)
				switch p.at(r.end) {
				case tComma:
					items(next, r.end+1)
				case tRParen:
					e := next[0]
					if len(next) > 1 {
						e = nodeE(KTuple, next...)
					}
					out = append(out, res{e: e, end: r.end + 1})
				}
			}
		}
		items(nil, pos+1)
	}
	out = append(out, p.atomExpr(pos, true)...)
	return dedupe(out)
}

// setRelation: set_relation (SUBSET|SUPSET) set_relation |
// atom_expr_list (IN|NOTIN|ASSIGNMENT) set_relation | minus_expr.
func (p *parser) setRelation(pos int) []res {
	return p.memoized(ruleSetRelation, pos, func() []res {
		var first []res
		for _, l := range p.atomExprList(pos) {
			t := p.at(l.end)
			if t != tIn && t != tNotIn && t != tAssign {
				continue
			}
			for _, r := range p.setRelation(l.end + 1) {
				e := nodeE(KEq, l.e, r.e)
				if t == tNotIn {
					e = nodeE(KNot, e)
				}
				first = append(first, res{e: e, end: r.end})
			}
		}
		first = append(first, p.minusExpr(pos)...)
		return p.binaryChain(first, func(t tok) bool { return t == tSubset || t == tSupset }, p.setRelation,
			func(token, *Expr, *Expr) *Expr { return errE() })
	})
}

func (p *parser) minusExpr(pos int) []res {
	return p.memoized(ruleMinus, pos, func() []res {
		return p.binaryChain(p.unionExpr(pos), func(t tok) bool { return t == tSetMinus }, p.unionExpr,
			func(_ token, l, r *Expr) *Expr { return nodeE(KCompl, l, r) })
	})
}

func (p *parser) unionExpr(pos int) []res {
	return p.memoized(ruleUnion, pos, func() []res {
		return p.binaryChain(p.interExpr(pos), func(t tok) bool { return t == tUnion }, p.interExpr,
			func(_ token, l, r *Expr) *Expr { return nodeE(KUnion, tupleToSet(l), tupleToSet(r)) })
	})
}

func (p *parser) interExpr(pos int) []res {
	return p.memoized(ruleInter, pos, func() []res {
		return p.binaryChain(p.setGroup(pos), func(t tok) bool { return t == tIntersection }, p.setGroup,
			func(_ token, l, r *Expr) *Expr { return nodeE(KInter, tupleToSet(l), tupleToSet(r)) })
	})
}

func (p *parser) setGroup(pos int) []res {
	return p.memoized(ruleSetGroup, pos, func() []res {
		var out []res
		if p.at(pos) == tLParen {
			for _, r := range p.minusExpr(pos + 1) {
				if p.at(r.end) == tRParen {
					out = append(out, res{e: r.e, end: r.end + 1})
				}
			}
		}
		return append(out, p.setAtom(pos)...)
	})
}
