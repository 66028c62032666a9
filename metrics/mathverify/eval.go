package mathverify

import (
	"math"
	"math/big"
	"math/cmplx"
)

// Numeric values of expressions: exact rationals while the arithmetic
// stays rational, complex128 otherwise. Symbols take the values of an
// environment (the sample points of symbolic comparisons); undefined
// functions a value hashed from their name and arguments' values, so f(x)
// equals f(x) only.

type num struct {
	exact *big.Rat // non-nil: the exact rational value
	c     complex128
	inf   int  // +1 / -1: oo / -oo (sympy's extended reals)
	fl    bool // computed in sympy Float arithmetic (53-bit, as float64)
}

// ieeeKey in an env selects sympy's Float arithmetic: Floats are float64
// values and anything combined with one is rounded to float64 (what doit()
// and simplify() compute); without it Floats are their exact binary
// values (what evalf's adaptive precision sees).
const ieeeKey = "\x00ieee"

var bigMinusOne = big.NewRat(-1, 1)

func exactNum(r *big.Rat) num {
	f, _ := r.Float64()
	return num{exact: r, c: complex(f, 0)}
}

func floatNum(c complex128) num { return num{c: c} }

func (n num) finite() bool {
	return n.inf == 0 && !cmplx.IsNaN(n.c) && !cmplx.IsInf(n.c)
}

// env maps a symbol (name and realness) to its sample value.
type env map[string]complex128

func symKey(e *Expr) string {
	if e.Real {
		return e.Name + "\x00r"
	}
	return e.Name
}

// maxExactBits bounds exact powers (sympy would time out long before).
const maxExactBits = 1 << 21

func evalNum(e *Expr, vars env) (num, bool) {
	switch e.K {
	case KInt, KRat:
		return exactNum(e.Rat), true
	case KFloat:
		if _, ok := vars[ieeeKey]; ok {
			f, _ := e.Rat.Float64()
			return num{c: complex(f, 0), fl: true}, true
		}
		return exactNum(e.Rat), true
	case KSym:
		v, ok := vars[symKey(e)]
		return floatNum(v), ok
	case KConst:
		return evalConst(e.Name)
	case KAdd:
		return foldNum(e.Args, vars, addNum)
	case KMul:
		return foldNum(e.Args, vars, mulNum)
	case KPow:
		b, ok1 := evalNum(e.Args[0], vars)
		x, ok2 := evalNum(e.Args[1], vars)
		if !ok1 || !ok2 {
			return num{}, false
		}
		return powNum(b, x)
	case KUneval:
		return evalNum(e.Args[0], vars)
	case KFunc:
		return evalFunc(e, vars)
	case KUndef:
		return evalUndef(e, vars)
	case KOpaque:
		return evalOpaque(e, vars)
	}
	return num{}, false
}

func evalConst(name string) (num, bool) {
	switch name {
	case "pi":
		return floatNum(complex(math.Pi, 0)), true
	case "E":
		return floatNum(complex(math.E, 0)), true
	case "EulerGamma":
		return floatNum(complex(0.5772156649015329, 0)), true
	case "I":
		return floatNum(complex(0, 1)), true
	case "oo":
		return num{inf: 1, c: complex(math.Inf(1), 0)}, true
	case "-oo":
		return num{inf: -1, c: complex(math.Inf(-1), 0)}, true
	}
	return num{}, false // zoo, nan
}

func foldNum(args []*Expr, vars env, f func(a, b num) (num, bool)) (num, bool) {
	acc, ok := evalNum(args[0], vars)
	if !ok {
		return acc, false
	}
	for _, a := range args[1:] {
		v, ok := evalNum(a, vars)
		if !ok {
			return v, false
		}
		if acc, ok = f(acc, v); !ok {
			return acc, false
		}
	}
	return acc, true
}

func addNum(a, b num) (num, bool) {
	if a.inf != 0 || b.inf != 0 {
		if a.inf != 0 && b.inf != 0 && a.inf != b.inf {
			return num{}, false
		}
		if a.inf != 0 {
			return a, true
		}
		return b, true
	}
	if a.exact != nil && b.exact != nil {
		return exactNum(new(big.Rat).Add(a.exact, b.exact)), true
	}
	return num{c: a.c + b.c, fl: a.fl || b.fl}, true
}

func mulNum(a, b num) (num, bool) {
	if a.inf != 0 || b.inf != 0 {
		return mulInf(a, b)
	}
	if a.exact != nil && b.exact != nil {
		return exactNum(new(big.Rat).Mul(a.exact, b.exact)), true
	}
	return num{c: mulC(a.c, b.c), fl: a.fl || b.fl}, true
}

func mulInf(a, b num) (num, bool) {
	s := 1
	for _, x := range []num{a, b} {
		switch {
		case x.inf != 0:
			s *= x.inf
		case imag(x.c) != 0 || real(x.c) == 0:
			return num{}, false
		case real(x.c) < 0:
			s = -s
		}
	}
	return num{inf: s, c: complex(math.Inf(s), 0)}, true
}

func powNum(b, x num) (num, bool) {
	if b.inf != 0 || x.inf != 0 {
		return num{}, false
	}
	if b.exact != nil && x.exact != nil {
		if v, ok := exactPow(b.exact, x.exact); ok {
			return exactNum(v), true
		}
	}
	if b.c == 0 {
		if real(x.c) > 0 {
			return exactNum(new(big.Rat)), true
		}
		return num{}, false
	}
	// Real base and exponent: sympy's principal branch agrees with cmplx.Pow.
	fl := b.fl || x.fl
	if imag(b.c) == 0 && imag(x.c) == 0 && (real(b.c) > 0 || real(x.c) == math.Trunc(real(x.c))) {
		return num{c: complex(math.Pow(real(b.c), real(x.c)), 0), fl: fl}, true
	}
	return num{c: cmplx.Pow(b.c, x.c), fl: fl}, true
}

// exactPow computes b**x when the result is rational: integer exponents
// and exact roots of rationals.
func exactPow(b, x *big.Rat) (*big.Rat, bool) {
	if !x.Num().IsInt64() || !x.Denom().IsInt64() {
		return nil, false
	}
	p, q := x.Num().Int64(), x.Denom().Int64()
	if b.Sign() == 0 {
		if p > 0 {
			return new(big.Rat), true
		}
		return nil, false
	}
	if q != 1 {
		if b.Sign() < 0 || q > 64 {
			return nil, false
		}
		rn, ok1 := intRoot(b.Num(), q)
		rd, ok2 := intRoot(b.Denom(), q)
		if !ok1 || !ok2 {
			return nil, false
		}
		b = new(big.Rat).SetFrac(rn, rd)
	}
	n := p
	if n < 0 {
		n = -n
	}
	bits := int64(b.Num().BitLen() + b.Denom().BitLen())
	if n*bits > maxExactBits {
		return nil, false
	}
	num := new(big.Int).Exp(b.Num(), big.NewInt(n), nil)
	den := new(big.Int).Exp(b.Denom(), big.NewInt(n), nil)
	if p < 0 {
		num, den = den, num
	}
	return new(big.Rat).SetFrac(num, den), true
}

// intRoot returns the exact q-th root of a non-negative integer.
func intRoot(n *big.Int, q int64) (*big.Int, bool) {
	if n.Sign() == 0 || n.Cmp(big.NewInt(1)) == 0 {
		return new(big.Int).Set(n), true
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	guess := math.Round(math.Pow(f, 1/float64(q)))
	for d := -1.0; d <= 1; d++ {
		g := big.NewInt(int64(guess + d))
		if g.Sign() <= 0 {
			continue
		}
		if new(big.Int).Exp(g, big.NewInt(q), nil).Cmp(n) == 0 {
			return g, true
		}
	}
	return nil, false
}

// constValue evaluates an expression without symbols (Floats exact).
func constValue(e *Expr) (num, bool) {
	if e == nil {
		return num{}, false
	}
	return evalNum(e, nil)
}

// floatValue evaluates an expression without symbols in Float arithmetic.
func floatValue(e *Expr) (num, bool) {
	if e == nil {
		return num{}, false
	}
	return evalNum(e, env{ieeeKey: 0})
}

// mulC multiplies, exactly as float64 when both are real.
func mulC(a, b complex128) complex128 {
	if imag(a) == 0 && imag(b) == 0 {
		return complex(real(a)*real(b), 0)
	}
	return a * b
}

// compareReal orders two real constants: -1, 0, +1.
func compareReal(a, b *Expr) (int, bool) {
	x, ok1 := constValue(a)
	y, ok2 := constValue(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	if x.inf != 0 || y.inf != 0 {
		if x.inf == y.inf {
			return 0, true
		}
		if x.inf > y.inf || (x.inf == 0 && y.inf < 0) {
			return 1, true
		}
		return -1, true
	}
	if imag(x.c) != 0 || imag(y.c) != 0 {
		return 0, false
	}
	if x.exact != nil && y.exact != nil {
		return x.exact.Cmp(y.exact), true
	}
	d := real(x.c) - real(y.c)
	if math.Abs(d) <= 1e-12*math.Max(1, math.Max(math.Abs(real(x.c)), math.Abs(real(y.c)))) {
		return 0, true
	}
	if d < 0 {
		return -1, true
	}
	return 1, true
}

// realValued is false only where sympy knows e is not real.
func realValued(e *Expr) bool {
	v, ok := constValue(e)
	if !ok || v.inf != 0 {
		return true
	}
	return math.Abs(imag(v.c)) < 1e-12
}

// sortKeyLess orders set elements: numbers by value, then the rest.
func sortKeyLess(a, b *Expr) bool {
	if c, ok := compareReal(a, b); ok {
		return c < 0
	}
	_, oka := constValue(a)
	_, okb := constValue(b)
	if oka != okb {
		return oka
	}
	return a.String() < b.String()
}
