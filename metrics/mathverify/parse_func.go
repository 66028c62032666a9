package mathverify

import "strings"

// PS.g4's func rule: named functions, f(x), \sqrt, e^x. Integrals, sums,
// products and limits convert to errors here (see doc.go).

var singleOpNames = map[string]bool{
	"arsinh": true, "arcsinh": true, "arcosh": true, "arccosh": true, "artanh": true, "arctanh": true,
	"floor": true, "ceil": true, "eye": true, "rank": true, "trace": true, "tr": true, "rref": true,
	"nullspace": true, "eig": true, "eigen": true, "diagonalize": true, "norm": true, "eigenvals": true,
	"eigenvalues": true, "eigenvects": true, "eigenvectors": true, "svd": true, "SVD": true, "cols": true, "rows": true,
}

var multiOpNames = map[string]bool{
	"gcd": true, "lcm": true, "zeros": true, "orth": true, "ortho": true, "orthogonal": true, "orthogonalize": true,
	"ones": true, "diag": true, "hstack": true, "vstack": true,
}

func (p *parser) fn(pos int) []res {
	return p.memoized(ruleFunc, pos, func() []res {
		var out []res
		out = append(out, p.fnNamed(pos, false)...)
		out = append(out, p.fnNamed(pos, true)...)
		out = append(out, p.fnUndefined(pos)...)
		switch p.at(pos) {
		case tSum, tProd:
			out = append(out, p.fnSum(pos)...)
		case tInt:
			out = append(out, p.fnIntegral(pos)...)
		case tLim:
			out = append(out, p.fnUnsupported(pos)...)
		case tSqrt:
			out = append(out, p.fnSqrt(pos)...)
		case tExpE:
			for _, s := range p.supexpr(pos + 1) {
				out = append(out, res{e: convExp(s.e), end: s.end})
			}
			out = append(out, res{e: convExp(nil), end: pos + 1})
		}
		return out
	})
}

// fnHead parses func_normal_single_arg or func_normal_multi_arg: the
// function's name and the position after it.
func (p *parser) fnHead(pos int, multi bool) (string, int) {
	t := p.toks[pos]
	switch {
	case !multi && (t.t == tFuncSingle || t.t == tFuncGamma):
		return t.text[1:], pos + 1
	case multi && t.t == tFuncMulti:
		return t.text[1:], pos + 1
	case t.t == tOperatorname && p.at(pos+1) == tLBrace && p.at(pos+2) == tOpName && p.at(pos+3) == tRBrace:
		name := p.toks[pos+2].text
		if (!multi && singleOpNames[name]) || (multi && multiOpNames[name]) {
			return "operatorname:" + name, pos + 4
		}
	}
	return "", -1
}

// scripts parses (subexpr? supexpr? | supexpr? subexpr?): sub and sup
// results (nil when absent) in preference order.
func (p *parser) scripts(pos int) [][3]res {
	var out [][3]res
	seen := map[int]bool{}
	add := func(sub, sup *res, end int) {
		if seen[end] {
			return
		}
		seen[end] = true
		var r [3]res
		r[2].end = end
		if sub != nil {
			r[0], r[0].end = *sub, 1
		}
		if sup != nil {
			r[1], r[1].end = *sup, 1
		}
		out = append(out, r)
	}
	for _, sb := range p.subexpr(pos) {
		for _, sp := range p.supexpr(sb.end) {
			add(&sb, &sp, sp.end)
		}
		add(&sb, nil, sb.end)
	}
	for _, sp := range p.supexpr(pos) {
		add(nil, &sp, sp.end)
	}
	add(nil, nil, pos)
	for _, sp := range p.supexpr(pos) {
		for _, sb := range p.subexpr(sp.end) {
			add(&sb, &sp, sb.end)
		}
	}
	return out
}

func (p *parser) fnNamed(pos int, multi bool) []res {
	name, q := p.fnHead(pos, multi)
	if q < 0 {
		return nil
	}
	var out []res
	for _, sc := range p.scripts(q) {
		var sub, sup *Expr
		hasSub, hasSup := sc[0].end == 1, sc[1].end == 1
		if hasSub {
			sub = sc[0].e
			if sub == nil {
				sub = errE() // args in a function's subscript
			}
		}
		if hasSup {
			sup = sc[1].e
		}
		at := sc[2].end
		if p.at(at) == tLParen {
			inner := p.expr(at + 1)
			if multi {
				inner = p.args(at + 1) // func_multi_arg: expr (, expr)*
			}
			for _, r := range inner {
				if p.at(r.end) != tRParen {
					continue
				}
				var e *Expr
				if multi {
					e = p.convMultiFunc(name, strings.Split(p.text(at+1, r.end), ","), sup)
				} else {
					e = convSingleFunc(name, r.e, sub, hasSub, sup)
				}
				out = append(out, res{e: e, end: r.end + 1})
			}
		}
		for _, r := range p.mpNofunc(at) {
			e := errE() // func_multi_arg_noparens().split raises
			if !multi {
				e = convSingleFunc(name, r.e, sub, hasSub, sup)
			}
			out = append(out, res{e: e, end: r.end})
		}
	}
	return out
}

// fnUndefined parses atom_expr_no_supexpr supexpr? followed by the
// arguments in (), [], {()} or {[]}: an undefined function f(x).
func (p *parser) fnUndefined(pos int) []res {
	var out []res
	for _, head := range p.atomExpr(pos, false) {
		name := p.text(pos, head.end)
		sups := append([]res(nil), p.supexpr(head.end)...)
		sups = append(sups, res{end: head.end})
		for _, sp := range sups {
			for _, a := range p.commonArgs(sp.end) {
				e := p.convUndefined(name, a.txt, sp.e)
				out = append(out, res{e: e, end: a.end})
			}
		}
	}
	return out
}

// commonArgs parses the bracketed func_common_args; txt is their text.
func (p *parser) commonArgs(pos int) []res {
	forms := [][]tok{{tLParen, tRParen}, {tLBracket, tRBracket}, {tLBrace, tLParen, tRParen, tRBrace}, {tLBrace, tLBracket, tRBracket, tRBrace}}
	var out []res
	for _, f := range forms {
		open, closing := f[:len(f)/2], f[len(f)/2:]
		q := pos
		for _, t := range open {
			q = p.expect(q, t)
		}
		if q < 0 {
			continue
		}
		for _, r := range p.funcCommonArgs(q) {
			e := r.end
			for _, t := range closing {
				e = p.expect(e, t)
			}
			if e >= 0 {
				out = append(out, res{end: e, txt: p.text(q, r.end)})
			}
		}
	}
	return out
}

// funcCommonArgs: atom | (expr ',') | (expr ',' args).
func (p *parser) funcCommonArgs(pos int) []res {
	out := append([]res(nil), p.atom(pos)...)
	for _, r := range p.expr(pos) {
		if p.at(r.end) == tComma {
			out = append(out, res{end: r.end + 1})
			out = append(out, p.args(r.end+1)...)
		}
	}
	return dedupe(out)
}

func (p *parser) fnSqrt(pos int) []res {
	var out []res
	try := func(root *Expr, hasRoot bool, q int) {
		for _, b := range p.braced(q) {
			out = append(out, res{e: convSqrt(b.e, root, hasRoot), end: b.end})
		}
	}
	if p.at(pos+1) == tLBracket {
		for _, r := range p.expr(pos + 2) {
			if p.at(r.end) == tRBracket {
				try(r.e, true, r.end+1)
			}
		}
	}
	try(nil, false, pos+1)
	return out
}

// fnIntegral parses FUNC_INT with optional limits and an integrand ending
// in its differential (\int_0^1 x\,dx): an Integral, evaluated
// numerically when definite (sympy's doit() evaluates it exactly). Other
// integrand forms convert to an error.
func (p *parser) fnIntegral(pos int) []res {
	var out []res
	for _, sc := range p.scripts(pos + 1) {
		hasSub, hasSup := sc[0].end == 1, sc[1].end == 1
		if hasSub != hasSup {
			continue
		}
		lo, hi := sc[0].e, sc[1].e
		q := sc[2].end
		mk := func(body *Expr, d token, end int) {
			args := []*Expr{body, symE(differentialVar(d.text), p.real)}
			e := &Expr{K: KOpaque, Name: "Integral", Args: args}
			if hasSub {
				if lo == nil || hi == nil || lo.K == KErr || hi.K == KErr {
					e = errE()
				} else {
					e.Args = append(e.Args, lo, hi)
				}
			}
			if body.K == KErr {
				e = errE()
			}
			out = append(out, res{e: e, end: end})
		}
		for _, r := range p.expr(q) {
			if p.at(r.end) == tDifferential {
				mk(r.e, p.toks[r.end], r.end+1)
			}
		}
		if p.at(q) == tDifferential {
			mk(intE(1), p.toks[q], q+1)
		}
		for _, r := range p.expr(q) {
			out = append(out, res{e: errE(), end: r.end})
		}
	}
	return out
}

// fnUnsupported consumes an integral, sum, product or limit as far as a
// following additive/mp would and converts it to an error (the match then
// does not parse).
func (p *parser) fnUnsupported(pos int) []res {
	var out []res
	for _, r := range p.mp(pos + 1) {
		out = append(out, res{e: errE(), end: r.end})
	}
	for _, sc := range p.scripts(pos + 1) {
		for _, r := range p.mp(sc[2].end) {
			out = append(out, res{e: errE(), end: r.end})
		}
	}
	return out
}

// fnSum parses (FUNC_SUM | FUNC_PROD) (subeq supexpr | supexpr subeq) mp:
// an unevaluated Sum or Product, compared by structure.
func (p *parser) fnSum(pos int) []res {
	name := "Sum"
	if p.at(pos) == tProd {
		name = "Product"
	}
	subeq := func(q int) []res {
		q = p.expect(p.expect(q, tUnderscore), tLBrace)
		if q < 0 {
			return nil
		}
		var out []res
		for _, r := range p.equality(q) {
			if p.at(r.end) == tRBrace {
				out = append(out, res{e: r.e, end: r.end + 1})
			}
		}
		return out
	}
	var out []res
	mk := func(eq, sup *Expr, q int) {
		for _, m := range p.mp(q) {
			e := &Expr{K: KOpaque, Name: name, Args: []*Expr{m.e, eq.Args[0], eq.Args[1], sup}}
			if m.e.K == KErr || sup.K == KErr || eq.hasKind(KErr) {
				e = errE()
			}
			out = append(out, res{e: e, end: m.end})
		}
	}
	for _, s := range subeq(pos + 1) {
		for _, sp := range p.supexpr(s.end) {
			mk(s.e, sp.e, sp.end)
		}
	}
	for _, sp := range p.supexpr(pos + 1) {
		for _, s := range subeq(sp.end) {
			mk(s.e, sp.e, s.end)
		}
	}
	return out
}

// subParse is latex2sympy's self.parse on a piece of text (function
// arguments are re-parsed from their text).
func (p *parser) subParse(s string) *Expr {
	e, ok := parseLatex(s, p.real)
	if !ok {
		return errE()
	}
	return e
}
