package mathverify

import (
	"math"
	"math/big"
	"math/cmplx"
)

var unaryFuncs = map[string]func(complex128) complex128{
	"sin": cmplx.Sin, "cos": cmplx.Cos, "tan": cmplx.Tan,
	"csc":  func(z complex128) complex128 { return 1 / cmplx.Sin(z) },
	"sec":  func(z complex128) complex128 { return 1 / cmplx.Cos(z) },
	"cot":  func(z complex128) complex128 { return 1 / cmplx.Tan(z) },
	"asin": cmplx.Asin, "acos": cmplx.Acos, "atan": cmplx.Atan,
	"acsc": func(z complex128) complex128 { return cmplx.Asin(1 / z) },
	"asec": func(z complex128) complex128 { return cmplx.Acos(1 / z) },
	"acot": func(z complex128) complex128 { return cmplx.Atan(1 / z) },
	"sinh": cmplx.Sinh, "cosh": cmplx.Cosh, "tanh": cmplx.Tanh,
	"asinh": cmplx.Asinh, "acosh": cmplx.Acosh, "atanh": cmplx.Atanh,
	"exp": cmplx.Exp,
	"gamma": func(z complex128) complex128 {
		if imag(z) != 0 {
			return cmplx.NaN()
		}
		return complex(math.Gamma(real(z)), 0)
	},
}

func evalFunc(e *Expr, vars env) (num, bool) {
	args := make([]num, len(e.Args))
	fl := false
	for i, a := range e.Args {
		v, ok := evalNum(a, vars)
		if !ok || v.inf != 0 {
			return num{}, false
		}
		args[i] = v
		fl = fl || v.fl
	}
	r, ok := evalFuncArgs(e.Name, args)
	if fl && ok {
		r.fl, r.exact = true, nil
	}
	return r, ok
}

func evalFuncArgs(name string, args []num) (num, bool) {
	if f, ok := unaryFuncs[name]; ok && len(args) == 1 {
		if name == "sin" || name == "tan" || name == "asin" || name == "atan" || name == "sinh" {
			if args[0].exact != nil && args[0].exact.Sign() == 0 {
				return exactNum(new(big.Rat)), true
			}
		}
		return floatNum(f(args[0].c)), true
	}
	switch name {
	case "log":
		return evalLog(args)
	case "Abs":
		if args[0].exact != nil {
			return exactNum(new(big.Rat).Abs(args[0].exact)), true
		}
		return floatNum(complex(cmplx.Abs(args[0].c), 0)), true
	case "floor", "ceiling":
		return evalFloorCeil(name, args[0])
	case "factorial":
		return evalFactorial(args[0])
	case "binomial":
		return evalBinomial(args)
	case "Mod":
		return evalMod(args)
	case "Max", "Min":
		return evalMaxMin(name, args)
	}
	return num{}, false
}

func evalLog(args []num) (num, bool) {
	if len(args) != 2 {
		return num{}, false
	}
	x, b := args[0], args[1]
	if x.exact != nil && x.exact.Cmp(big.NewRat(1, 1)) == 0 {
		return exactNum(new(big.Rat)), true
	}
	if x.exact != nil && b.exact != nil && x.exact.Sign() > 0 && b.exact.Sign() > 0 {
		// log_b(x) is rational when x = b^(p/q): try small integer exponents.
		for p := int64(-64); p <= 64; p++ {
			if p == 0 {
				continue
			}
			if v, ok := exactPow(b.exact, big.NewRat(p, 1)); ok && v.Cmp(x.exact) == 0 {
				return exactNum(big.NewRat(p, 1)), true
			}
		}
	}
	lb := cmplx.Log(b.c)
	if lb == 0 {
		return num{}, false
	}
	return floatNum(cmplx.Log(x.c) / lb), true
}

func evalFloorCeil(name string, x num) (num, bool) {
	if x.exact != nil {
		n, d := x.exact.Num(), x.exact.Denom()
		q := new(big.Int).Div(n, d) // Euclidean: floor for positive d
		if name == "ceiling" && new(big.Int).Mul(q, d).Cmp(n) != 0 {
			q.Add(q, big.NewInt(1))
		}
		return exactNum(new(big.Rat).SetInt(q)), true
	}
	if imag(x.c) != 0 {
		return num{}, false
	}
	f := math.Floor
	if name == "ceiling" {
		f = math.Ceil
	}
	v := f(real(x.c))
	return exactNum(new(big.Rat).SetFloat64(v)), !math.IsInf(v, 0) && !math.IsNaN(v)
}

func evalFactorial(x num) (num, bool) {
	if x.exact != nil && x.exact.IsInt() && x.exact.Num().IsInt64() {
		n := x.exact.Num().Int64()
		if n < 0 {
			return num{}, false
		}
		if n <= 1000 {
			return exactNum(new(big.Rat).SetInt(new(big.Int).MulRange(1, n))), true
		}
		return num{}, false
	}
	if imag(x.c) != 0 {
		return num{}, false
	}
	return floatNum(complex(math.Gamma(real(x.c)+1), 0)), true
}

func evalBinomial(args []num) (num, bool) {
	n, k := args[0], args[1]
	if n.exact != nil && k.exact != nil && n.exact.IsInt() && k.exact.IsInt() && n.exact.Num().IsInt64() && k.exact.Num().IsInt64() {
		nn, kk := n.exact.Num().Int64(), k.exact.Num().Int64()
		if kk < 0 || (nn >= 0 && kk > nn) {
			return exactNum(new(big.Rat)), true
		}
		if nn >= 0 && nn <= 100000 {
			return exactNum(new(big.Rat).SetInt(new(big.Int).Binomial(nn, kk))), true
		}
	}
	if imag(n.c) != 0 || imag(k.c) != 0 {
		return num{}, false
	}
	a, b := real(n.c), real(k.c)
	lg := func(x float64) float64 { v, _ := math.Lgamma(x + 1); return v }
	return floatNum(complex(math.Round(math.Exp(lg(a)-lg(b)-lg(a-b))), 0)), true
}

func evalMod(args []num) (num, bool) {
	a, b := args[0], args[1]
	if a.exact != nil && b.exact != nil && b.exact.Sign() != 0 {
		q := new(big.Rat).Quo(a.exact, b.exact)
		fl := new(big.Int).Div(q.Num(), q.Denom())
		r := new(big.Rat).Sub(a.exact, new(big.Rat).Mul(b.exact, new(big.Rat).SetInt(fl)))
		return exactNum(r), true
	}
	if imag(a.c) != 0 || imag(b.c) != 0 || real(b.c) == 0 {
		return num{}, false
	}
	x, y := real(a.c), real(b.c)
	return floatNum(complex(x-y*math.Floor(x/y), 0)), true
}

func evalMaxMin(name string, args []num) (num, bool) {
	best := args[0]
	for _, a := range args[1:] {
		if imag(a.c) != 0 || imag(best.c) != 0 {
			return num{}, false
		}
		less := real(a.c) < real(best.c)
		if a.exact != nil && best.exact != nil {
			less = a.exact.Cmp(best.exact) < 0
		}
		if (name == "Min") == less {
			best = a
		}
	}
	return best, true
}
