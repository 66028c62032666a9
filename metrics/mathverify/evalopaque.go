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
	switch {
	case e.Name == "Derivative":
		return evalDerivative(e, vars)
	case e.Name == "Integral" && len(e.Args) == 4:
		return evalIntegral(e, vars)
	case e.Name == "Integral":
		return num{}, false // an antiderivative: not evaluated here
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

// evalIntegral integrates over finite real limits with 24-point
// Gauss-Legendre quadrature (exact for polynomials of degree < 48).
func evalIntegral(e *Expr, vars env) (num, bool) {
	lo, ok1 := evalNum(e.Args[2], vars)
	hi, ok2 := evalNum(e.Args[3], vars)
	if !ok1 || !ok2 || !lo.finite() || !hi.finite() || imag(lo.c) != 0 || imag(hi.c) != 0 {
		return num{}, false
	}
	a, b := real(lo.c), real(hi.c)
	var sum complex128
	for i, x := range glNodes {
		inner := env{}
		for k, v := range vars {
			inner[k] = v
		}
		inner[symKey(e.Args[1])] = complex((b-a)/2*x+(a+b)/2, 0)
		v, ok := evalNum(e.Args[0], inner)
		if !ok || !v.finite() {
			return num{}, false
		}
		sum += complex(glWeights[i], 0) * v.c
	}
	return floatNum(sum * complex((b-a)/2, 0)), true
}

var glNodes, glWeights = gaussLegendre(24)

// gaussLegendre computes the n-point rule's nodes and weights on [-1, 1].
func gaussLegendre(n int) ([]float64, []float64) {
	xs, ws := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		x := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for it := 0; it < 100; it++ {
			p0, p1 := 1.0, x
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*x*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (x*p1 - p0) / (x*x - 1)
			dx := p1 / dp
			x -= dx
			if math.Abs(dx) < 1e-16 {
				break
			}
		}
		xs[i], ws[i] = x, 2/((1-x*x)*dp*dp)
	}
	return xs, ws
}
