package gocpu

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"
)

// Executable implements backends.Executable.
type Executable struct {
	b       *Backend
	nodes   []*node
	params  []*node
	outputs []*node
	// root[i] is the node whose run allocated node i's storage (i itself,
	// or an input's root for aliasing ops).
	root []int
	// release[i] lists the storage roots whose last use is node i:
	// returned to the pool once node i ran.
	release [][]int
	// needed[i]: node i leads to an output (others are not run).
	needed []bool
}

var _ backends.Executable = (*Executable)(nil)

func newExecutable(b *Builder, outs []*node) *Executable {
	e := &Executable{b: b.backend, nodes: b.nodes, params: b.params, outputs: outs}
	n := len(b.nodes)
	e.needed = make([]bool, n)
	for _, o := range outs {
		e.needed[o.idx] = true
	}
	for i := n - 1; i >= 0; i-- {
		if e.needed[i] {
			for _, in := range b.nodes[i].inputs {
				e.needed[in.idx] = true
			}
		}
	}
	e.root = make([]int, n)
	last := make([]int, n)
	for i, nd := range b.nodes {
		if !e.needed[i] {
			continue
		}
		e.root[i] = i
		if nd.alias {
			e.root[i] = e.root[nd.inputs[0].idx]
		}
		last[e.root[i]] = max(last[e.root[i]], i)
		for _, in := range nd.inputs {
			last[e.root[in.idx]] = max(last[e.root[in.idx]], i)
		}
	}
	keep := make([]bool, n) // storage the caller owns or receives
	for _, o := range outs {
		keep[e.root[o.idx]] = true
	}
	e.release = make([][]int, n)
	for i, nd := range b.nodes {
		if e.needed[i] && e.root[i] == i && !keep[i] && nd.run != nil && !nd.alias {
			e.release[last[i]] = append(e.release[last[i]], i)
		}
	}
	return e
}

// Finalize implements backends.Executable.
func (e *Executable) Finalize() { e.nodes, e.params, e.outputs = nil, nil, nil }

// Inputs implements backends.Executable.
func (e *Executable) Inputs() (names []string, inputShapes []shapes.Shape) {
	names = make([]string, len(e.params))
	inputShapes = make([]shapes.Shape, len(e.params))
	for i, p := range e.params {
		inputShapes[i] = p.shape
	}
	return names, inputShapes
}

// Outputs implements backends.Executable.
func (e *Executable) Outputs() []shapes.Shape {
	out := make([]shapes.Shape, len(e.outputs))
	for i, o := range e.outputs {
		out[i] = o.shape
	}
	return out
}

// runCtx is what an op's run sees of the execution.
type runCtx struct{ b *Backend }

// alloc returns a buffer of shape from the pool, zeroed when zero.
func (x *runCtx) alloc(shape shapes.Shape, zero bool) *Buffer {
	return &Buffer{shape: shape, flat: x.b.pool.get(shape.DType, shape.Size(), zero)}
}

func (x *runCtx) threads() int { return x.b.threads }

// Execute implements backends.Executable. Donated inputs are treated as
// borrowed (never written, never freed).
func (e *Executable) Execute(inputs []backends.Buffer, _ []bool, dev backends.DeviceNum) ([]backends.Buffer, error) {
	if dev != 0 {
		return nil, errors.Errorf("gocpu: device %d does not exist (one device, 0)", dev)
	}
	if len(inputs) != len(e.params) {
		return nil, errors.Errorf("gocpu: %d inputs given, graph has %d parameters", len(inputs), len(e.params))
	}
	vals := make([]*Buffer, len(e.nodes))
	for i, p := range e.params {
		buf, err := e.b.buffer(inputs[i])
		if err != nil {
			return nil, errors.Wrapf(err, "input #%d", i)
		}
		if !buf.shape.Equal(p.shape) {
			return nil, errors.Errorf("gocpu: input #%d has shape %s, parameter wants %s", i, buf.shape, p.shape)
		}
		vals[p.idx] = buf
	}
	x := &runCtx{b: e.b}
	in := make([]*Buffer, 0, 8)
	for i, nd := range e.nodes {
		switch {
		case !e.needed[i]:
			continue
		case nd.value != nil:
			vals[i] = nd.value
		case nd.run != nil:
			in = in[:0]
			for _, v := range nd.inputs {
				in = append(in, vals[v.idx])
			}
			v, err := nd.run(x, in)
			if err != nil {
				return nil, errors.Wrapf(err, "gocpu: %s → %s", nd.op, nd.shape)
			}
			vals[i] = v
		}
		for _, r := range e.release[i] {
			e.b.pool.put(e.nodes[r].shape.DType, vals[r].flat)
			vals[r] = nil
		}
	}
	return e.collect(vals), nil
}

// collect returns the outputs, copying any whose storage the caller
// already holds (an input or constant) or that an earlier output shares.
func (e *Executable) collect(vals []*Buffer) []backends.Buffer {
	out := make([]backends.Buffer, len(e.outputs))
	given := map[int]bool{}
	for i, o := range e.outputs {
		v, r := vals[o.idx], e.root[o.idx]
		owned := e.nodes[r].run != nil && !given[r]
		given[r] = true
		if owned {
			out[i] = &Buffer{shape: o.shape, flat: v.flat, pool: e.b.pool}
			continue
		}
		c := &Buffer{shape: o.shape, flat: makeFlat(o.shape.DType, o.shape.Size()), pool: e.b.pool}
		_ = copyFlat(c.flat, v.flat)
		out[i] = c
	}
	return out
}

// register marks op as implemented.
func register(ops ...backends.OpType) {
	for _, op := range ops {
		opSupported[op] = true
	}
}
