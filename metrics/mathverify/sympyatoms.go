package mathverify

import (
	"math/big"
	"sort"
	"strings"
)

// atom: (LETTER | SYMBOL) (subexpr? SINGLE_QUOTES? | SINGLE_QUOTES?
// subexpr?) | number | DIFFERENTIAL | mathit | frac | binom | bra | ket.
func (p *sParser) atom() *Expr {
	t := p.peek()
	switch t.k {
	case stLetter, stSymbol:
		p.next()
		if t.k == stSymbol && t.text == `\infty` {
			return constE("oo")
		}
		return symE(p.nameSuffix(strings.TrimPrefix(t.text, `\`)), false)
	case stDigit:
		return p.number()
	case stDifferential:
		p.next()
		return symE("d"+stDifferentialVar(t.text), false)
	case stMathit:
		p.next()
		p.expect(stLBrace)
		var b strings.Builder
		for p.is(stLetter) {
			b.WriteString(p.next().text)
		}
		p.expect(stRBrace)
		return symE(b.String(), false)
	case stFrac:
		return p.frac()
	case stBinom:
		p.next()
		n := p.braced()
		k := p.braced()
		return funcE("binomial", n, k)
	case stLAngle:
		p.next()
		e := p.expr()
		if !p.is(stRBar) && !p.is(stBar) {
			p.fail()
		}
		p.next()
		return &Expr{K: KUndef, Name: "Bra", Args: []*Expr{e}}
	case stLBar, stBar:
		p.next()
		e := p.expr()
		p.expect(stRAngle)
		return &Expr{K: KUndef, Name: "Ket", Args: []*Expr{e}}
	}
	p.fail()
	return nil
}

// nameSuffix reads a name's optional subscript and primes: sympy names the
// symbol name_{str(subscript)} followed by the quotes.
func (p *sParser) nameSuffix(name string) string {
	quotes := ""
	if p.is(stQuotes) {
		quotes = p.next().text
	}
	if p.is(stUnderscore) {
		p.next()
		sub := p.committed(p.atomOrBraced)
		name += "_{" + sympyStr(sub) + "}"
		if quotes == "" && p.is(stQuotes) {
			quotes = p.next().text
		}
	}
	return name + quotes
}

// sympyStr approximates StrPrinter for subscripts (numbers and names are
// exact; anything else is a stable spelling).
func sympyStr(e *Expr) string {
	switch e.K {
	case KInt, KFloat:
		if e.K == KInt {
			return e.Rat.Num().String()
		}
		f, _ := e.Rat.Float64()
		return big.NewFloat(f).Text('g', 15)
	case KSym:
		return e.Name
	case KConst:
		return e.Name
	case KAdd, KMul:
		// StrPrinter orders the terms; any fixed order names a_{n+1} and
		// a_{1+n} alike
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = sympyStr(a)
		}
		sort.Strings(parts)
		return strings.Join(parts, map[Kind]string{KAdd: " + ", KMul: "*"}[e.K])
	}
	return e.String()
}

// stDifferentialVar is get_differential_var_str: the name after d, spaces
// and a backslash.
func stDifferentialVar(text string) string {
	s := strings.TrimLeft(text[1:], " \t\r\n")
	return strings.TrimPrefix(s, `\`)
}

// number: DIGIT+ (',' DIGIT DIGIT DIGIT)* ('.' DIGIT+)?, as sympy.Number.
func (p *sParser) number() *Expr {
	first := p.first
	var b strings.Builder
	b.WriteString(p.expect(stDigit).text)
	if p.digitsThenBareDot() {
		// ANTLR's prediction ends the number after each digit of a run
		// that a '.' without decimals follows: "310." is 3 times 1, the
		// last "0." left over
		n, _ := new(big.Int).SetString(b.String(), 10)
		return &Expr{K: KInt, Rat: new(big.Rat).SetInt(n)}
	}
	for p.is(stDigit) {
		b.WriteString(p.next().text)
	}
	for p.is(stComma) {
		g, ok := p.try(func() *Expr {
			p.next()
			var d strings.Builder
			for i := 0; i < 3; i++ {
				d.WriteString(p.expect(stDigit).text)
			}
			return &Expr{Name: d.String()}
		})
		if !ok {
			break
		}
		b.WriteString(g.Name)
	}
	if !p.is(stDot) {
		n, _ := new(big.Int).SetString(b.String(), 10)
		return &Expr{K: KInt, Rat: new(big.Rat).SetInt(n)}
	}
	p.next()
	b.WriteByte('.')
	if !p.is(stDigit) && first {
		// a unary's first number: ANTLR's prediction took the '.', so
		// "5." and "2n+1." fail the whole parse; a later factor's "0." is
		// left over (p.first false)
		panic(sParseErr{fatal: true})
	}
	b.WriteString(p.expect(stDigit).text)
	// a further digit followed by '.' starts a new number to ANTLR's
	// prediction ("2.55.3" is 2.5 times 5.3)
	for p.is(stDigit) && p.toks[p.pos+1].k != stDot {
		b.WriteString(p.next().text)
	}
	f, ok := floatE(b.String())
	if !ok {
		p.fail()
	}
	return f
}

// digitsThenBareDot: the digits from the position on (one at least)
// are followed by a '.' and no digit.
func (p *sParser) digitsThenBareDot() bool {
	i := p.pos
	for p.toks[i].k == stDigit {
		i++
	}
	return i > p.pos && p.toks[i].k == stDot && p.toks[i+1].k != stDigit
}

// braced: L_BRACE expr R_BRACE.
func (p *sParser) braced() *Expr {
	p.expect(stLBrace)
	e := p.expr()
	p.expect(stRBrace)
	return e
}

// frac: CMD_FRAC (DIGIT | L_BRACE expr R_BRACE) twice, as convert_frac:
// \frac{d}{dx} is a derivative operator, 1/x is Pow(x, -1).
func (p *sParser) frac() *Expr {
	p.expect(stFrac)
	upStart := p.pos
	up := p.fracPart()
	upToks := p.toks[upStart:p.pos]
	lowStart := p.pos
	low := p.fracPart()
	lowToks := p.toks[lowStart:p.pos]
	if len(lowToks) == 3 && lowToks[1].k == stDifferential {
		wrt := symE(stDifferentialVar(lowToks[1].text), false)
		if len(upToks) == 3 && upToks[1].k == stLetter && upToks[1].text == "d" {
			return &Expr{K: KOpaque, Name: "wrt", Args: []*Expr{wrt}}
		}
		if len(upToks) > 2 && strings.HasPrefix(upToks[1].text, "d") {
			return &Expr{K: KUndef, Name: "Derivative", Args: []*Expr{up, wrt}}
		}
	}
	inv := nodeE(KPow, low, intE(-1))
	if up.K == KInt && up.Rat.Cmp(big.NewRat(1, 1)) == 0 {
		return inv
	}
	return nodeE(KMul, up, inv)
}

func (p *sParser) fracPart() *Expr {
	if p.is(stDigit) {
		n, _ := new(big.Int).SetString(p.next().text, 10)
		return &Expr{K: KInt, Rat: new(big.Rat).SetInt(n)}
	}
	return p.braced()
}

func isWrt(e *Expr) bool { return e.K == KOpaque && e.Name == "wrt" }

// postfixList is convert_postfix_list: implicit multiplication, an x
// between two symbol-free factors read as a times sign, a derivative
// operator applied to what follows it.
func postfixList(arr []*Expr, i int) *Expr {
	res := arr[i]
	if isWrt(res) {
		if i == len(arr)-1 {
			panic(sParseErr{fatal: true})
		}
		return &Expr{K: KOpaque, Name: "Derivative", Args: []*Expr{postfixList(arr, i+1), res.Args[0]}}
	}
	if i == len(arr)-1 {
		return res
	}
	if i > 0 && res.K == KSym && res.Name == "x" {
		l, r := arr[i-1], arr[i+1]
		if !isWrt(l) && !isWrt(r) && len(l.freeSymbols()) == 0 && len(r.freeSymbols()) == 0 {
			return postfixList(arr, i+1)
		}
	}
	return nodeE(KMul, res, postfixList(arr, i+1))
}
