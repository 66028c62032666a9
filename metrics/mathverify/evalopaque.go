package mathverify

import (
	"hash/fnv"
	"math"
	"math/big"
	"math/cmplx"
)

// Values of what arithmetic cannot evaluate: undefined functions, sums and
// products (hashed, so that equal forms get equal values) and derivatives
// (a central difference).

func evalUndef(e *Expr, vars env) (num, bool) {
	h := fnv.New64a()
	h.Write([]byte(e.Name))
	for _, a := range e.Args {
		v, ok := evalNum(a, vars)
		if !ok {
			return num{}, false
		}
		re, im := math.Round(real(v.c)*1e9), math.Round(imag(v.c)*1e9)
		var buf [16]byte
		for i := 0; i < 8; i++ {
			buf[i] = byte(int64(re) >> (8 * i))
			buf[8+i] = byte(int64(im) >> (8 * i))
		}
		h.Write(buf[:])
	}
	x := float64(h.Sum64()%1000003)/1000003*4 - 2
	return floatNum(complex(x, 0)), true
}

// evalOpaque gives a Sum or Product a value hashed from its bounds and its
// body at a few values of the bound variable: equal for bodies sympy's
// simplify would make equal (a reordered product), else different.
func evalOpaque(e *Expr, vars env) (num, bool) {
	if e.Name == "Derivative" {
		return evalDerivative(e, vars)
	}
	if (e.Name != "Sum" && e.Name != "Product") || len(e.Args) != 4 || e.Args[1].K != KSym {
		return num{}, false
	}
	h := &Expr{K: KUndef, Name: e.Name, Args: []*Expr{e.Args[2], e.Args[3]}}
	for _, t := range []float64{0.37, 1.41, 2.23} {
		inner := env{}
		for k, v := range vars {
			inner[k] = v
		}
		inner[symKey(e.Args[1])] = complex(t, 0)
		v, ok := evalNum(e.Args[0], inner)
		if !ok {
			return num{}, false
		}
		h.Args = append(h.Args, &Expr{K: KFloat, Rat: new(big.Rat).SetFloat64(math.Round(real(v.c)*1e9) / 1e9), Prec: 53})
	}
	return evalUndef(h, vars)
}

// evalDerivative differentiates numerically (a central difference).
func evalDerivative(e *Expr, vars env) (num, bool) {
	x := e.Args[1]
	if x.K != KSym {
		return num{}, false
	}
	at := func(t complex128) (num, bool) {
		inner := env{}
		for k, v := range vars {
			inner[k] = v
		}
		inner[symKey(x)] = t
		return evalNum(e.Args[0], inner)
	}
	x0, ok := vars[symKey(x)]
	if !ok {
		// d/dx of an expression without x: the derivative is zero if the
		// expression is constant in x.
		x0 = 0.5
	}
	h := 1e-5 * math.Max(1, cmplx.Abs(x0))
	a, ok1 := at(x0 + complex(h, 0))
	b, ok2 := at(x0 - complex(h, 0))
	if !ok1 || !ok2 {
		return num{}, false
	}
	return floatNum((a.c - b.c) / complex(2*h, 0)), true
}
