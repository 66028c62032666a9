package mathverify

import (
	"math/big"
	"strings"
)

// Symbols, accents and functions (convert_atom_expr, get_symbol,
// convert_func).

var greekNames = map[string]string{}

func init() {
	// GREEK_LETTER_MAP: each LaTeX command (and its unicode letter) to its name.
	for _, l := range greekLetters {
		if strings.HasPrefix(l, "\\char") {
			continue
		}
		if strings.HasPrefix(l, "\\") {
			greekNames[l] = l[1:]
		}
	}
	uni := []string{"α", "alpha", "β", "beta", "γ", "gamma", "Γ", "Gamma", "δ", "delta", "Δ", "Delta", "ε", "epsilon",
		"ϵ", "varepsilon", "ζ", "zeta", "η", "eta", "θ", "theta", "Θ", "Theta", "ϑ", "vartheta", "ι", "iota", "κ", "kappa",
		"λ", "lambda", "Λ", "Lambda", "μ", "mu", "ν", "nu", "ξ", "xi", "Ξ", "Xi", "ο", "omicron", "π", "pi", "Π", "Pi",
		"ϖ", "varpi", "ρ", "rho", "ϱ", "varrho", "σ", "sigma", "Σ", "Sigma", "ς", "varsigma", "τ", "tau", "υ", "upsilon",
		"Υ", "Upsilon", "φ", "phi", "Φ", "Phi", "ϕ", "varphi", "χ", "chi", "ψ", "psi", "Ψ", "Psi", "ω", "omega", "Ω", "Omega"}
	for i := 0; i < len(uni); i += 2 {
		greekNames[uni[i]] = uni[i+1]
	}
	for _, c := range []string{"alpha:391", "beta:392", "epsilon:190", "zeta:396", "eta:397", "iota:399", "kappa:39A",
		"mu:39C", "nu:39D", "omicron:39F", "rho:3A1", "tau:3A4", "chi:3A7"} {
		kv := strings.Split(c, ":")
		greekNames["\\char000"+kv[1]] = kv[0]
	}
}

// getSymbol is latex2sympy2's get_symbol.
func getSymbol(latex string, real bool, lower bool) *Expr {
	latex = strings.TrimSpace(latex)
	letter, ok := greekNames[strings.ReplaceAll(latex, "\"", "")]
	if !ok {
		letter = latex
	}
	letter = strings.TrimPrefix(letter, "\\")
	if c := singleton(letter); c != nil {
		return c
	}
	if lower {
		letter = strings.ToLower(letter)
	}
	if c := singleton(letter); c != nil {
		return c
	}
	return symE(letter, real)
}

func singleton(name string) *Expr {
	switch name {
	case "pi":
		return constE("pi")
	case "gamma", "Gamma":
		return constE("EulerGamma")
	}
	return nil
}

// convAtomExpr is convert_atom_expr: the symbol named by a letter, Greek
// letter, other symbol or accent with its subscript text, raised to sup.
func (p *parser) convAtomExpr(t token, sub string, sup *Expr) *Expr {
	var text string
	switch t.t {
	case tLetter:
		text = t.text
		if text == "I" {
			return powIf(constE("I"), sup)
		}
	case tGreek, tOtherSymbol:
		text = t.text
	case tAccent:
		text = accentText(t.text)
	}
	subText := ""
	if sub != "" {
		sub = strings.TrimSpace(sub)
		if len([]rune(sub)) > 1 {
			subText = "_{" + sub + "}"
		} else {
			subText = "_" + sub
		}
	}
	return powIf(getSymbol(strings.TrimSpace(text)+subText, p.real, true), sup)
}

func powIf(e, sup *Expr) *Expr {
	if sup == nil {
		return e
	}
	return convPow(e, sup)
}

func accentText(tok string) string {
	i := strings.Index(tok, "{")
	name := tok[1:i]
	inner := strings.ReplaceAll(tok[i+1:len(tok)-1], " ", "")
	switch {
	case name == "bar" || name == "overline":
		name = "bar"
	case name == "vec" || name == "overrightarrow":
		name = "vec"
	case name == "tilde" || name == "widetilde":
		name = "tilde"
	case strings.Contains(name, "text") || strings.Contains(name, "mbox"):
		name = ""
		inner = strings.NewReplacer("(", "", ")", "").Replace(inner)
	case strings.Contains(name, "math"):
		name = "math"
	}
	if name != "" {
		return name + "{" + inner + "}"
	}
	return inner
}

var trigInverse = map[string]string{"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arccsc": "acsc",
	"arcsec": "asec", "arccot": "acot", "arsinh": "asinh", "arcosh": "acosh", "artanh": "atanh",
	"arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}

// convSingleFunc is convert_func for func_normal_single_arg.
func convSingleFunc(name string, arg, sub *Expr, hasSub bool, sup *Expr) *Expr {
	if arg == nil || arg.K == KErr || (sup != nil && sup.K == KErr) || (sub != nil && sub.K == KErr) {
		return errE()
	}
	var e *Expr
	op := strings.TrimPrefix(name, "operatorname:")
	switch {
	case trigInverse[op] != "":
		e = funcE(trigInverse[op], arg)
	case op == "floor":
		e = funcE("floor", arg)
	case op == "ceil":
		e = funcE("ceiling", arg)
	case strings.HasPrefix(name, "operatorname:"):
		return errE() // matrix operations on a scalar raise
	case op == "log" || op == "ln":
		base := constE("E")
		if hasSub {
			base = sub
		} else if op == "log" {
			base = intE(10)
		}
		e = funcE("log", arg, base)
	case op == "exp":
		e = funcE("exp", arg)
	case op == "det":
		if !arg.isMatrix() {
			return errE()
		}
		e = determinant(arg)
	case op == "Gamma" || op == "gamma":
		e = evalGamma(arg)
	case op == "sin" || op == "cos" || op == "tan" || op == "csc" || op == "sec" || op == "cot" ||
		op == "sinh" || op == "cosh" || op == "tanh":
		if sup != nil && sup.K == KInt && sup.Rat.Cmp(big.NewRat(-1, 1)) == 0 {
			op, sup = "a"+op, nil
		}
		e = funcE(op, arg)
	default:
		e = &Expr{K: KUndef, Name: op, Args: []*Expr{arg}}
	}
	if sup != nil && !isZeroNumber(sup) {
		e = nodeE(KPow, e, sup)
	}
	return e
}

func isZeroNumber(e *Expr) bool { return e.isNumber() && e.Rat.Sign() == 0 }

// evalGamma is sympy.gamma(arg): evaluated at small positive integers.
func evalGamma(arg *Expr) *Expr {
	if arg.K == KInt && arg.Rat.Sign() > 0 && arg.Rat.Num().IsInt64() && arg.Rat.Num().Int64() <= 500 {
		n := arg.Rat.Num().Int64()
		return &Expr{K: KInt, Rat: new(big.Rat).SetInt(new(big.Int).MulRange(1, n-1))}
	}
	return funcE("gamma", arg)
}

// convMultiFunc is convert_func for func_normal_multi_arg: each
// comma-separated argument text is parsed again.
func (p *parser) convMultiFunc(name string, texts []string, sup *Expr) *Expr {
	var args []*Expr
	for _, t := range texts {
		a := p.subParse(t)
		if a.K == KErr {
			return a
		}
		args = append(args, a)
	}
	op := strings.TrimPrefix(name, "operatorname:")
	var e *Expr
	switch op {
	case "gcd", "lcm":
		e = gcdLcm(op, args)
	case "max":
		e = funcE("Max", args...)
	case "min":
		e = funcE("Min", args...)
	default:
		return errE()
	}
	if sup != nil && !isZeroNumber(sup) {
		e = nodeE(KPow, e, sup)
	}
	return e
}

// gcdLcm is handle_gcd_lcm for integer arguments (others raise here).
func gcdLcm(op string, args []*Expr) *Expr {
	var acc *big.Int
	for _, a := range args {
		if a.K != KInt {
			return errE()
		}
		v := new(big.Int).Abs(a.Rat.Num())
		switch {
		case acc == nil:
			acc = v
		case op == "gcd":
			acc = new(big.Int).GCD(nil, nil, acc, v)
		default:
			g := new(big.Int).GCD(nil, nil, acc, v)
			if g.Sign() == 0 {
				acc = big.NewInt(0)
			} else {
				acc = new(big.Int).Mul(acc, new(big.Int).Quo(v, g))
			}
		}
	}
	if acc == nil {
		return errE()
	}
	return nodeE(KUneval, &Expr{K: KInt, Rat: new(big.Rat).SetInt(acc)})
}

// convUndefined is sympy.Function(name)(*args) with args re-parsed.
func (p *parser) convUndefined(name, argText string, sup *Expr) *Expr {
	texts := strings.Split(argText, ",")
	if len(texts) > 0 && texts[len(texts)-1] == "" {
		texts = texts[:len(texts)-1]
	}
	var args []*Expr
	for _, t := range texts {
		a := p.subParse(t)
		if a.K == KErr {
			return a
		}
		args = append(args, a)
	}
	e := &Expr{K: KUndef, Name: name, Args: args}
	if sup != nil {
		return convPow(e, sup)
	}
	return e
}

// convSqrt: Pow(base, 1/root) or Pow(base, 1/2).
func convSqrt(base, root *Expr, hasRoot bool) *Expr {
	if base.K == KErr || (hasRoot && root.K == KErr) {
		return errE()
	}
	if !hasRoot {
		return nodeE(KPow, base, ratE(big.NewRat(1, 2)))
	}
	if root.K == KInt || root.K == KRat {
		if root.Rat.Sign() == 0 {
			return nodeE(KPow, base, constE("zoo"))
		}
		return nodeE(KPow, base, ratE(new(big.Rat).Inv(root.Rat)))
	}
	return nodeE(KPow, base, nodeE(KPow, root, intE(-1)))
}

// convExp is handle_exp: exp(x), evaluated (exp(1) is E).
func convExp(arg *Expr) *Expr {
	if arg == nil {
		return constE("E")
	}
	if arg.K == KErr {
		return arg
	}
	if arg.K == KInt && arg.Rat.Sign() == 0 {
		return intE(1)
	}
	if arg.K == KInt && arg.Rat.Cmp(big.NewRat(1, 1)) == 0 {
		return constE("E")
	}
	if arg.K == KFunc && arg.Name == "log" && arg.Args[1].K == KConst && arg.Args[1].Name == "E" {
		return arg.Args[0] // exp(log(x)) evaluates to x
	}
	return nodeE(KPow, constE("E"), arg)
}
