package gocpu

import (
	"reflect"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/notimplemented"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"
)

// runFunc computes a node's value from its inputs' values.
type runFunc func(x *runCtx, in []*Buffer) (*Buffer, error)

// node is one op of a graph. Nodes are created only after their inputs,
// so creation order is an execution order.
type node struct {
	idx    int
	op     backends.OpType
	shape  shapes.Shape
	inputs []*node
	run    runFunc
	// alias: the value shares its input 0's storage (Reshape, Identity).
	alias bool
	// inPlace: the op may write into input 0's storage when the execution
	// owns it and nothing reads it later (DynamicUpdateSlice; exec.go).
	inPlace bool
	// lastAxis: a reduction over the last axis alone (fuse.go matches it).
	lastAxis bool
	// fused names the chain a fused node computes ("Softmax"; fuse.go),
	// for op statistics.
	fused string
	// aux: the op's parameters fusion matches (fuse_rope.go): a unit-step
	// Slice's starts then limits; a Concatenate's axis.
	aux     []int
	dot     *dotPlan // a DotGeneral's plan (weights.go reads it)
	param   int      // index among the parameters, or -1
	value   *Buffer  // a constant's value
	statKey string   // the op-statistics key, set at its first timed run (opStats.mu)
}

// Builder implements backends.Builder; ops this backend lacks return an
// error naming the op (notimplemented.Builder).
type Builder struct {
	notimplemented.Builder
	backend  *Backend
	name     string
	nodes    []*node
	params   []*node
	compiled bool
}

var _ backends.Builder = (*Builder)(nil)

// opSupported lists the ops this backend implements (for Capabilities).
var opSupported = map[backends.OpType]bool{}

func newBuilder(b *Backend, name string) *Builder {
	bld := &Builder{backend: b, name: name}
	bld.Builder.ErrFn = func(op backends.OpType) error {
		return errors.Errorf("gocpu: op %s is not implemented by goeval's pure-Go backend", op)
	}
	return bld
}

// Name implements backends.Builder.
func (b *Builder) Name() string { return b.name }

// newNode appends a node of op with the given output shape.
func (b *Builder) newNode(op backends.OpType, shape shapes.Shape, run runFunc, inputs ...*node) *node {
	n := &node{idx: len(b.nodes), op: op, shape: shape, inputs: inputs, run: run, param: -1}
	b.nodes = append(b.nodes, n)
	return n
}

// node converts an Op of this builder back to its node.
func (b *Builder) node(op backends.Op, what string) (*node, error) {
	n, ok := op.(*node)
	if !ok || n == nil {
		return nil, errors.Errorf("gocpu: %s: operand is %T, not a gocpu op", what, op)
	}
	if n.idx >= len(b.nodes) || b.nodes[n.idx] != n {
		return nil, errors.Errorf("gocpu: %s: operand belongs to another graph", what)
	}
	return n, nil
}

func (b *Builder) nodes2(what string, ops ...backends.Op) ([]*node, error) {
	if b.compiled {
		return nil, errors.Errorf("gocpu: %s: graph %q is already compiled", what, b.name)
	}
	out := make([]*node, len(ops))
	for i, op := range ops {
		n, err := b.node(op, what)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// OpShape implements backends.Builder.
func (b *Builder) OpShape(op backends.Op) (shapes.Shape, error) {
	n, err := b.node(op, "OpShape")
	if err != nil {
		return shapes.Invalid(), err
	}
	return n.shape, nil
}

// Parameter implements backends.Builder.
func (b *Builder) Parameter(name string, shape shapes.Shape, sharding *backends.ShardingSpec) (backends.Op, error) {
	if sharding != nil {
		return nil, errors.Errorf("gocpu: parameter %q: sharding is not supported", name)
	}
	if err := checkStorageDType(shape.DType); err != nil {
		return nil, errors.Wrapf(err, "parameter %q", name)
	}
	n := b.newNode(backends.OpTypeParameter, shape.Clone(), nil)
	n.param = len(b.params)
	b.params = append(b.params, n)
	return n, nil
}

// Constant implements backends.Builder: flat is a []T (or a scalar T
// with no dims).
func (b *Builder) Constant(flat any, dims ...int) (backends.Op, error) {
	v := reflect.ValueOf(flat)
	if v.Kind() != reflect.Slice {
		s := reflect.MakeSlice(reflect.SliceOf(v.Type()), 1, 1)
		s.Index(0).Set(v)
		flat, v = s.Interface(), s
	}
	shape := shapes.Make(dtypes.FromGoType(v.Type().Elem()), dims...)
	if err := checkDType(shape.DType); err != nil {
		return nil, errors.Wrap(err, "constant")
	}
	if shape.Size() != v.Len() {
		return nil, errors.Errorf("gocpu: constant of %d values for shape %s", v.Len(), shape)
	}
	buf := &Buffer{shape: shape, flat: makeFlat(shape.DType, shape.Size())}
	if err := copyFlat(buf.flat, flat); err != nil {
		return nil, err
	}
	n := b.newNode(backends.OpTypeConstant, shape, nil)
	n.value = buf
	return n, nil
}

// Identity implements backends.Builder.
func (b *Builder) Identity(x backends.Op) (backends.Op, error) {
	in, err := b.nodes2("Identity", x)
	if err != nil {
		return nil, err
	}
	n := b.newNode(backends.OpTypeIdentity, in[0].shape, func(_ *runCtx, v []*Buffer) (*Buffer, error) {
		return &Buffer{shape: in[0].shape, flat: v[0].flat}, nil
	}, in[0])
	n.alias = true
	return n, nil
}

// Compile implements backends.Builder.
func (b *Builder) Compile(outputs []backends.Op, shardings []*backends.ShardingSpec) (backends.Executable, error) {
	if len(shardings) != 0 {
		return nil, errors.New("gocpu: sharding is not supported")
	}
	outs, err := b.nodes2("Compile", outputs...)
	if err != nil {
		return nil, err
	}
	b.compiled = true
	return newExecutable(b, outs), nil
}
