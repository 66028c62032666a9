package gocpu

import (
	"maps"
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// Float16 rounding fusion. LLM.int8 rounds each activation to float16
// (models/nn.RoundToFloat16, whose TestRoundToFloat16 checks that this
// fusion still matches it) with graph ops alone, as GoMLX's pure-Go
// backends hold no float16:
//
//	a  = Abs(x)
//	e0 = Max(Floor(Div(Log(a), ln2)), −14)          a's binade, estimated
//	p  = Pow(2, e0)
//	e1 = Where(LessThan(a, p), Sub(e0, 1), e0)      … and corrected
//	e2 = Where(GreaterOrEqual(a, Mul(p, 2)), Add(e1, 1), e1)
//	c  = Mul(1.5, Pow(2, Add(Max(e2, −14), 13)))    its float32 quantum is float16's
//	Where(GreaterOrEqual(a, 65520), Where(LessThan(x, 0), −Inf, +Inf), Sub(Add(x, c), c))
//
// — eighteen passes over the activations, a logarithm and two powers per
// value: most of an LLM.int8 layer's time besides its products. When the
// last Where is built over that chain of one float32 x, one node computes
// it instead (roundF16): the binade read from x's exponent bits (where
// the estimate and its corrections arrive for every float32), then the
// same c and the same float32 sum and difference, so the chain's bits
// (TestRoundF16Fused).

// pat is a node pattern: op over inputs; a float32 scalar constant of
// value float32(k) (op 0, no inputs); or a name, bound where first met
// to the node its one input matches (to any node, with no input) and
// matching only that node after.
type pat struct {
	op   backends.OpType
	in   []pat
	k    float64
	name string
}

func pName(name string, p ...pat) pat       { return pat{name: name, in: p} }
func pConst(k float64) pat                  { return pat{k: k} }
func pOp(op backends.OpType, in ...pat) pat { return pat{op: op, in: in} }
func (p pat) commutes() bool {
	return p.op == backends.OpTypeAdd || p.op == backends.OpTypeMul || p.op == backends.OpTypeMax
}

// match reports whether n matches p, binding names in env (left as it
// was when n does not match).
func (p pat) match(n *node, env map[string]*node) bool {
	switch {
	case p.name != "":
		if bound, ok := env[p.name]; ok {
			return bound == n
		}
		if len(p.in) == 1 && !p.in[0].match(n, env) {
			return false
		}
		env[p.name] = n
		return true
	case p.op == 0:
		return n.op == backends.OpTypeConstant && n.shape.Equal(shapes.Make(dtypes.Float32)) &&
			n.value.flat.([]float32)[0] == float32(p.k)
	case n.op != p.op || len(n.inputs) != len(p.in):
		return false
	}
	return p.matchInputs(n.inputs, env, false) || (p.commutes() && p.matchInputs(n.inputs, env, true))
}

// matchInputs matches p's inputs with ins, the two swapped if swap.
func (p pat) matchInputs(ins []*node, env map[string]*node, swap bool) bool {
	saved := maps.Clone(env)
	for i, q := range p.in {
		j := i
		if swap {
			j = len(ins) - 1 - i
		}
		if !q.match(ins[j], env) {
			clear(env)
			maps.Copy(env, saved)
			return false
		}
	}
	return true
}

// roundF16Chain is the chain above, its rounded value named x.
var roundF16Chain = func() pat {
	const (
		where = backends.OpTypeWhere
		lt    = backends.OpTypeLessThan
		ge    = backends.OpTypeGreaterOrEqual
		add   = backends.OpTypeAdd
		mul   = backends.OpTypeMul
		pow   = backends.OpTypePow
		maxOp = backends.OpTypeMax
	)
	x, a := pName("x"), pName("a", pOp(backends.OpTypeAbs, pName("x")))
	e0 := pName("e0", pOp(maxOp, pOp(backends.OpTypeFloor, pOp(backends.OpTypeDiv, pOp(backends.OpTypeLog, a), pConst(math.Ln2))), pConst(-14)))
	p := pName("p", pOp(pow, pConst(2), e0))
	e1 := pName("e1", pOp(where, pOp(lt, a, p), pOp(backends.OpTypeSub, e0, pConst(1)), e0))
	e2 := pOp(where, pOp(ge, a, pOp(mul, p, pConst(2))), pOp(add, e1, pConst(1)), e1)
	c := pName("c", pOp(mul, pConst(1.5), pOp(pow, pConst(2), pOp(add, pOp(maxOp, e2, pConst(-14)), pConst(13)))))
	inf := pOp(where, pOp(lt, x, pConst(0)), pConst(math.Inf(-1)), pConst(math.Inf(1)))
	return pOp(where, pOp(ge, a, pConst(65520)), inf, pOp(backends.OpTypeSub, pOp(add, x, c), c))
}()

// fuseRoundF16 returns the fused node for Where(cond, onTrue, onFalse)
// when it ends the chain, else nil.
func (b *Builder) fuseRoundF16(cond, onTrue, onFalse backends.Op) *node {
	if !fuseOps || b.compiled {
		return nil
	}
	var in [3]*node
	for i, op := range []backends.Op{cond, onTrue, onFalse} {
		n, err := b.node(op, "Where")
		if err != nil {
			return nil
		}
		in[i] = n
	}
	top := &node{op: backends.OpTypeWhere, inputs: in[:]}
	env := map[string]*node{}
	if !roundF16Chain.match(top, env) {
		return nil
	}
	x := env["x"]
	if x.shape.DType != dtypes.Float32 || !x.shape.Equal(in[2].shape) {
		return nil
	}
	n := b.newNode(backends.OpTypeWhere, x.shape, mapRun(x.shape, roundF16), x)
	n.fused = "RoundF16"
	return n
}

// roundF16 is the chain's value for one x: x rounded to the float16 grid
// of its binade (2^−24 below 2^−14), ties to even, ±Inf from 65520 on.
func roundF16(x float32) float32 {
	a := float32(math.Abs(float64(x)))
	if a >= 65520 {
		if x < 0 {
			return float32(math.Inf(-1))
		}
		return float32(math.Inf(1))
	}
	e := -14
	if a >= 1.0/(1<<14) { // a float32 normal: its exponent bits are its binade
		e = int(math.Float32bits(a)>>23) - 127
	}
	c := float32(math.Ldexp(1.5, e+13))
	return (x + c) - c
}
