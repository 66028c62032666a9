package mathverify

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
)

// unwrapFuncs is math-verify's unwrap_fcs: f(x) becomes the symbol f_x, so
// that 0 < f(x) < 1 has a set.
func unwrapFuncs(e *Expr) *Expr {
	if e == nil {
		return nil
	}
	if e.K == KUndef {
		var parts []string
		for _, a := range e.Args {
			parts = append(parts, unwrapFuncs(a).String())
		}
		return symE(fmt.Sprintf("%s_%s", e.Name, strings.Join(parts, "_")), true)
	}
	if len(e.Args) == 0 {
		return e
	}
	out := *e
	out.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		out.Args[i] = unwrapFuncs(a)
	}
	if e.Unsorted != nil {
		out.Unsorted = make([]*Expr, len(e.Unsorted))
		for i, a := range e.Unsorted {
			out.Unsorted[i] = unwrapFuncs(a)
		}
	}
	return &out
}

var asSetGrid = func() []float64 {
	seen := map[float64]bool{0: true}
	for k := 1; k <= 400; k++ {
		seen[float64(k)/2], seen[-float64(k)/2] = true, true
	}
	for e := -60; e <= 120; e++ {
		v := math.Pow(10, float64(e)/20)
		seen[v], seen[-v] = true, true
	}
	var g []float64
	for v := range seen {
		g = append(g, v)
	}
	sort.Float64s(g)
	return g
}()

// numericSolveSet is the solution set of d (op) 0 in x found numerically:
// roots on a grid of half-integers and powers of ten, or by bisection
// where the sign changes; each gap between roots tested at its midpoint.
func numericSolveSet(d, x *Expr, k Kind, strict bool) (realSet, bool) {
	f := func(t float64) (float64, bool) {
		v, ok := evalNum(d, env{symKey(x): complex(t, 0)})
		if !ok || !v.finite() || math.Abs(imag(v.c)) > 1e-12 {
			return 0, false
		}
		return real(v.c), true
	}
	holds := func(t float64) bool {
		v, ok := f(t)
		if !ok {
			return false
		}
		switch {
		case k == KEq:
			return math.Abs(v) < 1e-12
		case k == KNe:
			return math.Abs(v) >= 1e-12
		case strict:
			return v < -1e-12
		}
		return v < 1e-12
	}
	var roots []float64
	prev, prevOK := 0.0, false
	for i, t := range asSetGrid {
		v, ok := f(t)
		if ok && math.Abs(v) < 1e-12 {
			roots = append(roots, t)
		} else if ok && prevOK && i > 0 && (v < 0) != (prev < 0) && math.Abs(prev) >= 1e-12 {
			lo, hi := asSetGrid[i-1], t
			for it := 0; it < 200; it++ {
				mid := (lo + hi) / 2
				m, ok := f(mid)
				if !ok {
					return nil, false
				}
				if (m < 0) == (prev < 0) {
					lo = mid
				} else {
					hi = mid
				}
			}
			roots = append(roots, (lo+hi)/2)
		}
		prev, prevOK = v, ok
	}
	if len(roots) > 50 {
		return nil, false
	}
	ep := func(t float64) endpoint {
		r := new(big.Rat).SetFloat64(t)
		if r.Denom().IsInt64() && r.Denom().Int64() <= 2 {
			return endpoint{v: t, ex: r}
		}
		return endpoint{v: t}
	}
	var out realSet
	bounds := append(append([]float64{math.Inf(-1)}, roots...), math.Inf(1))
	for i := 0; i+1 < len(bounds); i++ {
		a, b := bounds[i], bounds[i+1]
		mid := (a + b) / 2
		switch {
		case math.IsInf(a, -1) && math.IsInf(b, 1):
			mid = 0.5
		case math.IsInf(a, -1):
			mid = b - 1
		case math.IsInf(b, 1):
			mid = a + 1
		}
		if holds(mid) {
			lo, hi := endpoint{inf: -1}, endpoint{inf: 1}
			if !math.IsInf(a, 0) {
				lo = ep(a)
			}
			if !math.IsInf(b, 0) {
				hi = ep(b)
			}
			out = append(out, ival{lo, hi, true, true})
		}
		if i+1 < len(bounds)-1 && holds(b) {
			out = append(out, ival{ep(b), ep(b), false, false})
		}
	}
	return normalizeSet(out), true
}
