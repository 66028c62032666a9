package mathverify

import (
	"math/big"
	"strings"
)

// extractExpr is math_verify's extract_expr: a number match becomes a
// sympy Number (a percentage times 1/100), an expression match is parsed
// as sympy's parse_expr(evaluate=False) would.
func extractExpr(s span) (*Expr, string) {
	integer, decimal := "", ""
	for _, g := range []string{"integer1", "integer2", "integer3"} {
		if v, ok := s.group(g); ok && v != "" {
			integer = v
			break
		}
	}
	for _, g := range []string{"decimal1", "decimal2", "decimal3"} {
		if v, ok := s.group(g); ok && v != "" {
			decimal = v
			break
		}
	}
	pct, _ := s.group("percent")
	if integer != "" || decimal != "" {
		integer = strings.TrimLeft(strings.NewReplacer(",", "", " ", "").Replace(integer), "0")
		if integer == "" {
			integer = "0"
		}
		numStr := integer + strings.ReplaceAll(decimal, ",", ".")
		n := pyNumber(numStr)
		if n == nil {
			return nil, numStr
		}
		if pct != "" {
			n = percentOf(n)
		}
		return n, numStr
	}
	expr, _ := s.group("expr")
	if expr != "" {
		src := strings.ReplaceAll(strings.ReplaceAll(expr, "\n", " "), "^", "**")
		if e, ok := parsePyExpr(src); ok {
			return e, expr
		}
	}
	return nil, expr
}

// pyNumber is sympy.Number(text) for "-12", "0012", "3.5", ".5", "-0.5".
func pyNumber(text string) *Expr {
	neg := strings.HasPrefix(text, "-")
	t := strings.TrimPrefix(text, "-")
	if t == "" {
		return nil
	}
	var e *Expr
	if isDigits(t) {
		r, _ := new(big.Rat).SetString(t)
		e = &Expr{K: KInt, Rat: r}
	} else {
		f, ok := floatE(t)
		if !ok {
			return nil
		}
		e = f
	}
	if neg {
		e = negNumber(e)
	}
	return e
}

// pyExprParser parses the arithmetic parse_expr accepts in an expression
// match: numbers, + - * / ** and parentheses (Python's grammar; anything
// else, such as implicit products or ×, is a syntax error there).
type pyExprParser struct {
	s   string
	pos int
}

func parsePyExpr(s string) (e *Expr, ok bool) {
	p := &pyExprParser{s: s}
	defer func() {
		if r := recover(); r != nil {
			if _, isErr := r.(pySyntaxError); !isErr {
				panic(r)
			}
			e, ok = nil, false
		}
	}()
	e = p.sum()
	p.space()
	if p.pos != len(p.s) {
		return nil, false
	}
	return e, true
}

type pySyntaxError struct{}

func (p *pyExprParser) space() {
	for p.pos < len(p.s) && isPySpace(rune(p.s[p.pos])) {
		p.pos++
	}
}

func (p *pyExprParser) peek(op string) bool {
	p.space()
	return strings.HasPrefix(p.s[p.pos:], op)
}

func (p *pyExprParser) sum() *Expr {
	e := p.term()
	for {
		switch {
		case p.peek("+"):
			p.pos++
			e = nodeE(KAdd, e, p.term())
		case p.peek("-"):
			p.pos++
			e = nodeE(KAdd, e, nodeE(KMul, intE(-1), p.term()))
		default:
			return e
		}
	}
}

func (p *pyExprParser) term() *Expr {
	e := p.unary()
	for {
		switch {
		case p.peek("**"):
			return e // handled in power
		case p.peek("*"):
			p.pos++
			e = nodeE(KMul, e, p.unary())
		case p.peek("/"):
			if strings.HasPrefix(p.s[p.pos:], "//") {
				panic(pySyntaxError{})
			}
			p.pos++
			e = nodeE(KMul, e, nodeE(KPow, p.unary(), intE(-1)))
		default:
			return e
		}
	}
}

func (p *pyExprParser) unary() *Expr {
	switch {
	case p.peek("-"):
		p.pos++
		x := p.unary()
		if x.isNumber() {
			return negNumber(x)
		}
		return nodeE(KMul, intE(-1), x)
	case p.peek("+"):
		p.pos++
		return p.unary()
	}
	return p.power()
}

func (p *pyExprParser) power() *Expr {
	base := p.atom()
	if p.peek("**") {
		p.pos += 2
		return nodeE(KPow, base, p.unary())
	}
	return base
}

func (p *pyExprParser) atom() *Expr {
	p.space()
	if p.pos >= len(p.s) {
		panic(pySyntaxError{})
	}
	if p.s[p.pos] == '(' {
		p.pos++
		e := p.sum()
		if !p.peek(")") {
			panic(pySyntaxError{})
		}
		p.pos++
		return e
	}
	start := p.pos
	for p.pos < len(p.s) && (isDigit(p.s[p.pos]) || p.s[p.pos] == '.') {
		p.pos++
	}
	lit := p.s[start:p.pos]
	if lit == "" || strings.Count(lit, ".") > 1 || lit == "." {
		panic(pySyntaxError{})
	}
	if !strings.Contains(lit, ".") && len(lit) > 1 && lit[0] == '0' && strings.Trim(lit, "0") != "" {
		panic(pySyntaxError{}) // leading zeros in a decimal integer literal
	}
	if p.peek("(") {
		panic(pySyntaxError{}) // calling a number
	}
	if strings.Contains(lit, ".") {
		f, ok := floatE(lit)
		if !ok {
			panic(pySyntaxError{})
		}
		return f
	}
	r, _ := new(big.Rat).SetString(lit)
	return &Expr{K: KInt, Rat: r}
}
