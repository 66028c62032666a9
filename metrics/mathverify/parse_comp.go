package mathverify

// comp, atom and their parts (PS.g4's comp, group, atom_expr, frac, ...).

var groupPairs = [][2]tok{
	{tLParen, tRParen}, {tLGroup, tRGroup}, {tLBrace, tRBrace}, {tLBracket, tRBracket},
	{tLBraceVis, tRBraceVis}, {tLBraceCmd, tRBraceCmd}, {tLBrack, tRBrack},
}

// enclosed parses open expr close for each pair whose opener is at pos.
func (p *parser) enclosed(pos int, pairs [][2]tok, conv func(*Expr) *Expr) []res {
	var out []res
	for _, pr := range pairs {
		if p.at(pos) != pr[0] {
			continue
		}
		for _, r := range p.expr(pos + 1) {
			if p.at(r.end) == pr[1] {
				out = append(out, res{e: conv(r.e), end: r.end + 1})
			}
		}
	}
	return out
}

func ident(e *Expr) *Expr { return e }

func (p *parser) comp(pos int) []res {
	return p.memoized(ruleComp, pos, func() []res { return p.compAlts(pos, true) })
}

func (p *parser) compNofunc(pos int) []res {
	return p.memoized(ruleCompNofunc, pos, func() []res { return p.compAlts(pos, false) })
}

func (p *parser) compAlts(pos int, withFunc bool) []res {
	var out []res
	out = append(out, p.enclosed(pos, groupPairs, ident)...)
	// formatting_group: \phantom{expr} | \boxed{expr}
	if t := p.at(pos); t == tPhantom || t == tBoxed {
		out = append(out, p.enclosed(pos+1, [][2]tok{{tLBrace, tRBrace}}, ident)...)
	}
	out = append(out, p.enclosed(pos, [][2]tok{{tNorm, tNorm}}, func(*Expr) *Expr { return errE() })...)
	out = append(out, p.enclosed(pos, [][2]tok{{tBar, tBar}, {tLVert, tRVert}, {tVert, tVert}},
		func(e *Expr) *Expr { return funcE("Abs", e) })...)
	out = append(out, p.enclosed(pos, [][2]tok{{tLAngle, tRAngle}}, func(*Expr) *Expr { return errE() })...)
	out = append(out, p.enclosed(pos, [][2]tok{{tLFloor, tRFloor}, {tLLCorner, tLRCorner}},
		func(e *Expr) *Expr { return funcE("floor", e) })...)
	out = append(out, p.enclosed(pos, [][2]tok{{tLCeil, tRCeil}, {tULCorner, tURCorner}},
		func(e *Expr) *Expr { return funcE("ceiling", e) })...)
	if withFunc {
		out = append(out, p.fn(pos)...)
	}
	out = append(out, p.atom(pos)...)
	out = append(out, p.frac(pos)...)
	out = append(out, p.binom(pos)...)
	out = append(out, p.matrix(pos)...)
	return out
}

func (p *parser) frac(pos int) []res {
	if p.at(pos) != tFrac {
		return nil
	}
	var out []res
	for _, up := range p.braced(pos + 1) {
		for _, lo := range p.braced(up.end) {
			out = append(out, res{e: p.convFrac(up, lo), end: lo.end})
		}
	}
	return out
}

// braced parses { expr }; txt keeps the span of the expression's tokens
// for convert_frac's derivative checks (start index in e-less res.txt).
func (p *parser) braced(pos int) []res {
	if p.at(pos) != tLBrace {
		return nil
	}
	var out []res
	for _, r := range p.expr(pos + 1) {
		if p.at(r.end) == tRBrace {
			out = append(out, res{e: r.e, end: r.end + 1, txt: p.text(pos+1, r.end)})
		}
	}
	return out
}

func (p *parser) binom(pos int) []res {
	var out []res
	if p.at(pos) == tLBrace {
		for _, up := range p.expr(pos + 1) {
			if p.at(up.end) != tChoose {
				continue
			}
			for _, lo := range p.expr(up.end + 1) {
				if p.at(lo.end) == tRBrace {
					out = append(out, res{e: convBinom(up.e, lo.e), end: lo.end + 1})
				}
			}
		}
	}
	if p.at(pos) == tBinom {
		for _, up := range p.braced(pos + 1) {
			for _, lo := range p.braced(up.end) {
				out = append(out, res{e: convBinom(up.e, lo.e), end: lo.end})
			}
		}
	}
	return out
}

func (p *parser) matrix(pos int) []res {
	ends := map[tok]tok{tMatrixStart: tMatrixEnd, tArrayStart: tArrayEnd, tDetStart: tDetEnd}
	end, ok := ends[p.at(pos)]
	if !ok {
		return nil
	}
	var out []res
	for _, r := range p.matrixRows(pos + 1) {
		if p.at(r.end) == end {
			e := r.e
			if end == tDetEnd {
				e = convDet(e)
			}
			out = append(out, res{e: e, end: r.end + 1})
		}
	}
	return out
}

// matrixRows parses matrix_row (\\ matrix_row)* \\?; e is the Matrix.
func (p *parser) matrixRows(pos int) []res {
	var out []res
	var rows func(acc [][]*Expr, pos int)
	rows = func(acc [][]*Expr, pos int) {
		p.tick()
		for _, r := range p.matrixRow(pos) {
			next := append(append([][]*Expr(nil), acc...), r.e.Args)
			if p.at(r.end) == tRowSep {
				rows(next, r.end+1)
				out = append(out, res{e: convMatrix(next), end: r.end + 1})
			}
			out = append(out, res{e: convMatrix(next), end: r.end})
		}
	}
	rows(nil, pos)
	return dedupe(out)
}

// matrixRow parses expr (& expr)*; e is a Tuple of the cells.
func (p *parser) matrixRow(pos int) []res {
	var out []res
	var cells func(acc []*Expr, pos int)
	cells = func(acc []*Expr, pos int) {
		p.tick()
		for _, r := range p.expr(pos) {
			next := append(append([]*Expr(nil), acc...), r.e)
			if p.at(r.end) == tAmp {
				cells(next, r.end+1)
			}
			out = append(out, res{e: nodeE(KTuple, next...), end: r.end})
		}
	}
	cells(nil, pos)
	return dedupe(out)
}

func (p *parser) atom(pos int) []res {
	return p.memoized(ruleAtom, pos, func() []res {
		out := append([]res(nil), p.atomExpr(pos, true)...)
		t := p.toks[pos]
		switch t.t {
		case tSymbol:
			out = append(out, res{e: convSymbolTok(t.text), end: pos + 1})
		case tNumber:
			n := parseNumber(t.text)
			for _, s := range p.subexpr(pos + 1) {
				out = append(out, res{e: n, end: s.end})
			}
			out = append(out, res{e: n, end: pos + 1})
		case tPercentNumber:
			// convert_atom tests atom.FUNC_GAMMA() first, which the ANTLR 4.11
			// parser's AtomContext lacks: an AttributeError.
			out = append(out, res{e: errE(), end: pos + 1})
		case tENotation:
			out = append(out, res{e: parseNumber(t.text), end: pos + 1})
		case tENotationE:
			out = append(out, res{e: p.createSymbol("E", false), end: pos + 1})
		case tDifferential:
			out = append(out, res{e: symE("d"+differentialVar(t.text), p.real), end: pos + 1})
		}
		return out
	})
}

// atomExpr parses atom_expr (withSup) or atom_expr_no_supexpr; txt is the
// subscript's text.
func (p *parser) atomExpr(pos int, withSup bool) []res {
	t := p.toks[pos]
	switch t.t {
	case tLetter, tGreek, tOtherSymbol, tAccent:
	default:
		return nil
	}
	var out []res
	mk := func(sub string, sup *Expr, end int) {
		out = append(out, res{e: p.convAtomExpr(t, sub, sup), end: end, txt: sub})
	}
	if withSup {
		for _, sp := range p.supexpr(pos + 1) {
			for _, sb := range p.subexpr(sp.end) {
				mk(sb.txt, sp.e, sb.end)
			}
		}
	}
	if withSup {
		for _, sb := range p.subexpr(pos + 1) {
			for _, sp := range p.supexpr(sb.end) {
				mk(sb.txt, sp.e, sp.end)
			}
		}
	}
	for _, sb := range p.subexpr(pos + 1) {
		mk(sb.txt, nil, sb.end)
	}
	if withSup {
		for _, sp := range p.supexpr(pos + 1) {
			mk("", sp.e, sp.end)
		}
	}
	mk("", nil, pos+1)
	return dedupe(out)
}

// subexpr parses UNDERSCORE (atom | { expr | args }); e is the atom or
// expr (nil for args), txt the getText of the part after the underscore
// (without braces).
func (p *parser) subexpr(pos int) []res {
	return p.memoized(ruleSubexpr, pos, func() []res { return p.scriptArg(pos, tUnderscore, true) })
}

func (p *parser) supexpr(pos int) []res {
	return p.memoized(ruleSupexpr, pos, func() []res { return p.scriptArg(pos, tCaret, false) })
}

func (p *parser) scriptArg(pos int, t tok, withArgs bool) []res {
	if p.at(pos) != t {
		return nil
	}
	var out []res
	for _, a := range p.atom(pos + 1) {
		out = append(out, res{e: a.e, end: a.end, txt: p.text(pos+1, a.end)})
	}
	if p.at(pos+1) == tLBrace {
		for _, r := range p.expr(pos + 2) {
			if p.at(r.end) == tRBrace {
				out = append(out, res{e: r.e, end: r.end + 1, txt: p.text(pos+2, r.end)})
			}
		}
		if withArgs {
			for _, r := range p.args(pos + 2) {
				if p.at(r.end) == tRBrace {
					out = append(out, res{e: nil, end: r.end + 1, txt: p.text(pos+2, r.end)})
				}
			}
		}
	}
	return out
}

// args parses (expr ',' args) | expr: the end positions only.
func (p *parser) args(pos int) []res {
	var out []res
	for _, r := range p.expr(pos) {
		if p.at(r.end) == tComma {
			out = append(out, p.args(r.end+1)...)
		}
		out = append(out, res{end: r.end})
	}
	return dedupe(out)
}
