package mathverify

import (
	"math/big"
	"strings"
)

// Kind is the sympy class an Expr stands for.
type Kind int

// The kinds of Expr. Numbers, symbols and the arithmetic nodes mirror
// sympy's classes as latex2sympy2_extended builds them (unevaluated, args
// in the written order); the rest are the relations, sets and containers
// math-verify compares.
const (
	KInt       Kind = iota // Integer: Rat holds the value
	KRat                   // Rational (denominator > 1)
	KFloat                 // Float: Rat holds the exact binary value, Prec its bits
	KSym                   // Symbol: Name, Real
	KConst                 // pi, E, I, oo, -oo, zoo, nan, EulerGamma: Name
	KAdd                   // Add(Args...)
	KMul                   // Mul(Args...)
	KPow                   // Pow(base, exp)
	KFunc                  // a known function: Name (sin, log, Abs, factorial, ...)
	KUndef                 // an undefined function f(args): Name
	KUneval                // UnevaluatedExpr(arg): the percent factor 1/100
	KOpaque                // Integral, Sum, Derivative, ...: compared by structure only
	KEq                    // Eq(lhs, rhs)
	KNe                    // Ne
	KLt                    // StrictLessThan
	KLe                    // LessThan
	KGt                    // StrictGreaterThan
	KGe                    // GreaterThan
	KAnd                   // And of relations: Args in written order
	KNot                   // Not(arg)
	KFiniteSet             // FiniteSet: Args deduplicated and sorted, Unsorted as written
	KInterval              // Interval(start, end) with LOpen, ROpen
	KUnion                 // Union(Args...)
	KInter                 // Intersection(Args...)
	KCompl                 // Complement(a, b)
	KEmpty                 // EmptySet
	KNamedSet              // Naturals, Integers, Rationals, Reals, Complexes: Name
	KTuple                 // Tuple(Args...)
	KMatrix                // Matrix: Rows x Cols, Args row-major
	KErr                   // a conversion that raises in latex2sympy2: the whole parse fails
)

// Expr is a parsed answer: a tree in sympy's shape.
type Expr struct {
	K            Kind
	Rat          *big.Rat
	Prec         uint // KFloat: binary precision
	Name         string
	Real         bool // KSym: created with real=True
	Args         []*Expr
	Unsorted     []*Expr // KFiniteSet, KAnd: the arguments as written
	LOpen, ROpen bool
	Rows, Cols   int
}

func intE(n int64) *Expr { return &Expr{K: KInt, Rat: new(big.Rat).SetInt64(n)} }

// ratE returns the sympy Rational p (Integer when whole).
func ratE(r *big.Rat) *Expr {
	if r.IsInt() {
		return &Expr{K: KInt, Rat: r}
	}
	return &Expr{K: KRat, Rat: r}
}

func symE(name string, real bool) *Expr { return &Expr{K: KSym, Name: name, Real: real} }
func constE(name string) *Expr          { return &Expr{K: KConst, Name: name} }

func nodeE(k Kind, args ...*Expr) *Expr { return &Expr{K: k, Args: args} }

func funcE(name string, args ...*Expr) *Expr { return &Expr{K: KFunc, Name: name, Args: args} }

// isNumber is sympy's isinstance(e, Number).
func (e *Expr) isNumber() bool {
	return e != nil && (e.K == KInt || e.K == KRat || e.K == KFloat)
}

func (e *Expr) isRelational() bool {
	return e != nil && e.K >= KEq && e.K <= KGe
}

func (e *Expr) isSet() bool {
	if e == nil {
		return false
	}
	switch e.K {
	case KFiniteSet, KInterval, KUnion, KInter, KCompl, KEmpty, KNamedSet:
		return true
	}
	return false
}

// isZoo reports nan or zoo, on which math-verify's comparison raises.
func (e *Expr) isNanZoo() bool {
	return e != nil && e.K == KConst && (e.Name == "nan" || e.Name == "zoo")
}

// Equal is sympy's structural ==.
func (e *Expr) Equal(o *Expr) bool {
	if e == nil || o == nil {
		return e == o
	}
	if e.isNumber() && o.isNumber() {
		if (e.K == KFloat) != (o.K == KFloat) {
			return false // sympy 1.14: Float(0.5) != Rational(1, 2)
		}
		return e.Rat.Cmp(o.Rat) == 0
	}
	if e.K != o.K || e.Name != o.Name || e.Real != o.Real || len(e.Args) != len(o.Args) {
		return false
	}
	if e.K == KInterval && (e.LOpen != o.LOpen || e.ROpen != o.ROpen) {
		return false
	}
	if e.K == KMatrix && (e.Rows != o.Rows || e.Cols != o.Cols) {
		return false
	}
	for i := range e.Args {
		if !e.Args[i].Equal(o.Args[i]) {
			return false
		}
	}
	return true
}

// String prints the expression (for tests and debugging; not sympy's str).
func (e *Expr) String() string {
	if e == nil {
		return "<nil>"
	}
	var b strings.Builder
	e.write(&b)
	return b.String()
}

var kindNames = map[Kind]string{
	KAdd: "Add", KMul: "Mul", KPow: "Pow", KUneval: "Uneval", KEq: "Eq", KNe: "Ne", KLt: "Lt", KLe: "Le",
	KGt: "Gt", KGe: "Ge", KAnd: "And", KNot: "Not", KFiniteSet: "FiniteSet", KInterval: "Interval",
	KUnion: "Union", KInter: "Intersection", KCompl: "Complement", KEmpty: "EmptySet", KTuple: "Tuple",
	KMatrix: "Matrix",
}

func (e *Expr) write(b *strings.Builder) {
	switch e.K {
	case KInt, KRat:
		b.WriteString(e.Rat.RatString())
		return
	case KFloat:
		f, _ := e.Rat.Float64()
		b.WriteString("Float(")
		b.WriteString(big.NewFloat(f).Text('g', 17))
		b.WriteString(")")
		return
	case KSym, KConst, KNamedSet:
		b.WriteString(e.Name)
		return
	}
	name := kindNames[e.K]
	if e.K == KFunc || e.K == KUndef || e.K == KOpaque {
		name = e.Name
	}
	if e.K == KInterval {
		if e.LOpen {
			name += ".L"
		}
		if e.ROpen {
			name += ".R"
		}
	}
	b.WriteString(name)
	b.WriteString("(")
	for i, a := range e.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(b)
	}
	b.WriteString(")")
}

// freeSymbols returns the distinct symbols of e in first-seen order.
func (e *Expr) freeSymbols() []*Expr {
	var out []*Expr
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x == nil {
			return
		}
		if x.K == KSym {
			for _, s := range out {
				if s.Equal(x) {
					return
				}
			}
			out = append(out, x)
			return
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// hasKind reports whether any node of e has kind k.
func (e *Expr) hasKind(k Kind) bool {
	if e == nil {
		return false
	}
	if e.K == k {
		return true
	}
	for _, a := range e.Args {
		if a.hasKind(k) {
			return true
		}
	}
	return false
}
