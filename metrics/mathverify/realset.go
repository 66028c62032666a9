package mathverify

import (
	"math"
	"math/big"
	"sort"
)

// Subsets of the real line with numeric endpoints: what sympy evaluates
// unions, intersections and complements of intervals and points to.

type endpoint struct {
	v   float64
	ex  *big.Rat // exact value when rational
	inf int
}

func (a endpoint) cmp(b endpoint) int {
	if a.inf != 0 || b.inf != 0 {
		switch {
		case a.inf == b.inf:
			return 0
		case a.inf < b.inf:
			return -1
		}
		return 1
	}
	if a.ex != nil && b.ex != nil {
		return a.ex.Cmp(b.ex)
	}
	d := a.v - b.v
	if math.Abs(d) <= 1e-12*math.Max(1, math.Max(math.Abs(a.v), math.Abs(b.v))) {
		return 0
	}
	if d < 0 {
		return -1
	}
	return 1
}

type ival struct {
	lo, hi       endpoint
	lopen, ropen bool
}

// realSet is a sorted union of disjoint, non-touching intervals.
type realSet []ival

func endpointOf(e *Expr) (endpoint, bool) {
	v, ok := constValue(e)
	if !ok {
		return endpoint{}, false
	}
	if v.inf != 0 {
		return endpoint{inf: v.inf, v: math.Inf(v.inf)}, true
	}
	if math.Abs(imag(v.c)) > 1e-12 || !v.finite() {
		return endpoint{}, false
	}
	return endpoint{v: real(v.c), ex: v.exact}, true
}

func realSetOf(e *Expr) (realSet, bool) {
	switch e.K {
	case KEmpty:
		return nil, true
	case KNamedSet:
		if e.Name == "Reals" {
			return realSet{{lo: endpoint{inf: -1}, hi: endpoint{inf: 1}, lopen: true, ropen: true}}, true
		}
		return nil, false
	case KInterval:
		lo, ok1 := endpointOf(e.Args[0])
		hi, ok2 := endpointOf(e.Args[1])
		if !ok1 || !ok2 {
			return nil, false
		}
		return normalizeSet(realSet{{lo, hi, e.LOpen, e.ROpen}}), true
	case KFiniteSet:
		var out realSet
		for _, a := range e.Args {
			p, ok := endpointOf(a)
			if !ok || p.inf != 0 {
				return nil, false
			}
			out = append(out, ival{p, p, false, false})
		}
		return normalizeSet(out), true
	case KUnion, KInter, KCompl:
		acc, ok := realSetOf(e.Args[0])
		if !ok {
			return nil, false
		}
		for _, a := range e.Args[1:] {
			s, ok := realSetOf(a)
			if !ok {
				return nil, false
			}
			switch e.K {
			case KUnion:
				acc = normalizeSet(append(append(realSet(nil), acc...), s...))
			case KInter:
				acc = acc.intersect(s)
			default:
				acc = acc.intersect(s.complement())
			}
		}
		return acc, true
	}
	return nil, false
}

func (iv ival) empty() bool {
	c := iv.lo.cmp(iv.hi)
	return c > 0 || (c == 0 && (iv.lopen || iv.ropen))
}

// normalizeSet sorts and merges overlapping or touching intervals.
func normalizeSet(s realSet) realSet {
	var xs realSet
	for _, iv := range s {
		if !iv.empty() {
			xs = append(xs, iv)
		}
	}
	sort.SliceStable(xs, func(i, j int) bool {
		c := xs[i].lo.cmp(xs[j].lo)
		return c < 0 || (c == 0 && !xs[i].lopen && xs[j].lopen)
	})
	var out realSet
	for _, iv := range xs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			c := iv.lo.cmp(last.hi)
			if c < 0 || (c == 0 && !(iv.lopen && last.ropen)) {
				if h := iv.hi.cmp(last.hi); h > 0 || (h == 0 && !iv.ropen) {
					last.hi, last.ropen = iv.hi, iv.ropen
				}
				continue
			}
		}
		out = append(out, iv)
	}
	return out
}

func (s realSet) complement() realSet {
	cur := endpoint{inf: -1}
	curOpen := true
	var out realSet
	for _, iv := range s {
		out = append(out, ival{cur, iv.lo, curOpen, !iv.lopen})
		cur, curOpen = iv.hi, !iv.ropen
	}
	out = append(out, ival{cur, endpoint{inf: 1}, curOpen, true})
	return normalizeSet(out)
}

func (s realSet) intersect(t realSet) realSet {
	var out realSet
	for _, a := range s {
		for _, b := range t {
			iv := a
			if c := b.lo.cmp(iv.lo); c > 0 || (c == 0 && b.lopen) {
				iv.lo, iv.lopen = b.lo, b.lopen
			}
			if c := b.hi.cmp(iv.hi); c < 0 || (c == 0 && b.ropen) {
				iv.hi, iv.ropen = b.hi, b.ropen
			}
			out = append(out, iv)
		}
	}
	return normalizeSet(out)
}

func (s realSet) equal(t realSet) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		a, b := s[i], t[i]
		if a.lo.cmp(b.lo) != 0 || a.hi.cmp(b.hi) != 0 || a.lopen != b.lopen || a.ropen != b.ropen {
			return false
		}
	}
	return true
}
