package mathverify

import "strings"

// integral parses FUNC_INT's rest: (subexpr supexpr | supexpr subexpr)?
// (additive? DIFFERENTIAL | frac | additive), as handle_integral: the
// variable is the differential's, else that of a d-symbol inside the
// integrand (replaced by 1), else x. It returns the definite integral
// (KOpaque Integral: integrand, variable, bounds) or nil for an
// indefinite one.
func (p *sParser) integral() *Expr {
	var lo, hi *Expr
	p.try(func() *Expr {
		if p.is(stUnderscore) {
			p.next()
			lo = p.atomOrBraced()
			hi = p.supOnly()
		} else {
			hi = p.supOnly()
			p.expect(stUnderscore)
			lo = p.atomOrBraced()
		}
		return nil
	})
	body, v := p.integrand()
	if lo == nil || hi == nil {
		return nil
	}
	return &Expr{K: KOpaque, Name: "Integral", Args: []*Expr{body, v, lo, hi}}
}

func (p *sParser) integrand() (body, v *Expr) {
	if p.is(stDifferential) {
		return intE(1), symE(stDifferentialVar(p.next().text), false)
	}
	if e, ok := p.try(func() *Expr { e := p.expr(); p.expect(stDifferential); return e }); ok {
		return e, symE(stDifferentialVar(p.toks[p.pos-1].text), false)
	}
	e, ok := p.try(p.frac)
	if !ok {
		e = p.expr()
	}
	for _, s := range e.freeSymbols() {
		if len(s.Name) > 1 && s.Name[0] == 'd' {
			return substitute(e, []*Expr{s}, []*Expr{intE(1)}), symE(strings.TrimPrefix(s.Name[1:], `\`), false)
		}
	}
	return e, symE("x", false)
}

// limit parses FUNC_LIM's limit_sub and body.
func (p *sParser) limit() {
	p.expect(stUnderscore)
	p.expect(stLBrace)
	if !p.is(stLetter) && !p.is(stSymbol) {
		p.fail()
	}
	p.next()
	p.expect(stLimApproach)
	p.expr()
	if p.is(stCaret) {
		p.next()
		switch {
		case p.is(stLBrace):
			p.next()
			if !p.is(stAdd) && !p.is(stSub) {
				p.fail()
			}
			p.next()
			p.expect(stRBrace)
		case p.is(stAdd) || p.is(stSub):
			p.next()
		default:
			p.fail()
		}
	}
	p.expect(stRBrace)
	p.mp(false)
}
