package gocpu

import (
	"sync"
	"time"

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
	// needed[i]: node i leads to an output (others are not run).
	needed []bool
	// packing[k]: how parameter k is used (weights packed in place).
	packing []packSpec
	// plans by which parameters are donated (see plan).
	mu    sync.Mutex
	plans map[string]*plan
}

// plan is where each value of one execution lives and when its storage
// goes back to the pool; it depends on which inputs the caller donated.
type plan struct {
	// root[i] is the node whose storage node i's value uses (i itself, an
	// input's root for aliasing ops and in-place updates).
	root []int
	// owned[r]: storage root r belongs to the execution (computed by it,
	// or a donated input).
	owned []bool
	// inPlace[i]: node i writes into its input 0's storage.
	inPlace []bool
	// release[i] lists the owned storage roots whose last use is node i:
	// returned to the pool once node i ran.
	release [][]int
}

var _ backends.Executable = (*Executable)(nil)

func newExecutable(b *Builder, outs []*node) *Executable {
	e := &Executable{b: b.backend, nodes: b.nodes, params: b.params, outputs: outs, plans: map[string]*plan{}}
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
	e.packing = paramPacking(b.params, b.nodes, e.needed, outs)
	return e
}

// planFor returns the plan for the donated parameters (nil: none).
func (e *Executable) planFor(donated []bool) *plan {
	key := make([]byte, len(e.params))
	for i := range key {
		key[i] = '0'
		if i < len(donated) && donated[i] {
			key[i] = '1'
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if p := e.plans[string(key)]; p != nil {
		return p
	}
	p := e.makePlan(key)
	e.plans[string(key)] = p
	return p
}

// makePlan builds the plan; donated[k] == '1' when parameter k is donated.
func (e *Executable) makePlan(donated []byte) *plan {
	n := len(e.nodes)
	p := &plan{root: make([]int, n), owned: make([]bool, n), inPlace: make([]bool, n), release: make([][]int, n)}
	valLast := make([]int, n) // last node reading each value (n: an output)
	for i, nd := range e.nodes {
		if e.needed[i] {
			for _, in := range nd.inputs {
				valLast[in.idx] = max(valLast[in.idx], i)
			}
		}
	}
	keep := make([]bool, n) // storage the caller receives
	for _, o := range e.outputs {
		valLast[o.idx] = n
	}
	last := make([]int, n) // last node reading each storage root
	for i, nd := range e.nodes {
		if !e.needed[i] {
			continue
		}
		p.root[i] = i
		p.owned[i] = nd.run != nil || (nd.param >= 0 && donated[nd.param] == '1')
		if nd.alias {
			p.root[i] = p.root[nd.inputs[0].idx]
		} else if nd.inPlace {
			r := p.root[nd.inputs[0].idx]
			shared := false
			for _, in := range nd.inputs[1:] {
				shared = shared || p.root[in.idx] == r
			}
			if p.owned[r] && last[r] <= i && valLast[nd.inputs[0].idx] == i && !shared {
				p.root[i], p.inPlace[i] = r, true
			}
		}
		last[p.root[i]] = max(last[p.root[i]], valLast[i])
	}
	for _, o := range e.outputs {
		keep[p.root[o.idx]] = true
	}
	for i, nd := range e.nodes {
		if e.needed[i] && p.root[i] == i && !keep[i] && p.owned[i] && !nd.alias && last[i] < n {
			p.release[last[i]] = append(p.release[last[i]], i)
		}
	}
	return p
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
type runCtx struct {
	b       *Backend
	inPlace bool // the running node may write into its input 0 (plan.inPlace)
}

// alloc returns a buffer of shape from the pool, zeroed when zero.
func (x *runCtx) alloc(shape shapes.Shape, zero bool) *Buffer {
	return &Buffer{shape: shape, flat: x.b.pool.get(shape.DType, shape.Size(), zero)}
}

func (x *runCtx) threads() int { return x.b.threads }

// Execute implements backends.Executable. Donated inputs belong to the
// execution: in-place updates may write into them, and their storage goes
// to the pool after their last use. Other inputs are never written.
func (e *Executable) Execute(inputs []backends.Buffer, donate []bool, dev backends.DeviceNum) ([]backends.Buffer, error) {
	if dev != 0 {
		return nil, errors.Errorf("gocpu: device %d does not exist (one device, 0)", dev)
	}
	if len(inputs) != len(e.params) {
		return nil, errors.Errorf("gocpu: %d inputs given, graph has %d parameters", len(inputs), len(e.params))
	}
	vals := make([]*Buffer, len(e.nodes))
	own := make([]bool, len(e.params)) // donated, and no one else can hold the storage
	for i, p := range e.params {
		buf, err := e.b.buffer(inputs[i])
		if err != nil {
			return nil, errors.Wrapf(err, "input #%d", i)
		}
		if !buf.shape.Equal(p.shape) {
			return nil, errors.Errorf("gocpu: input #%d has shape %s, parameter wants %s", i, buf.shape, p.shape)
		}
		vals[p.idx] = buf
		// Storage handed out (BufferData, shared buffers: a tensor's
		// local copy may be it) stays borrowed even when donated.
		own[i] = i < len(donate) && donate[i] && buf.pool != nil
	}
	e.prepareWeights(vals, own)
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	p := e.planFor(own)
	x := &runCtx{b: e.b}
	mem := newMemTrack(e.nodes)
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
			x.inPlace = p.inPlace[i]
			var t0 time.Time
			timed := opStats.on.Load()
			if timed {
				t0 = time.Now()
			}
			v, err := nd.run(x, in)
			if timed {
				recordOp(nd, time.Since(t0))
			}
			if err != nil {
				return nil, errors.Wrapf(err, "gocpu: %s → %s", nd.op, nd.shape)
			}
			vals[i] = v
			if p.root[i] == i && !nd.alias {
				mem.alloc(i, int64(flatCap(v.flat)*nd.shape.DType.Size()))
			}
		}
		for _, r := range p.release[i] {
			e.b.pool.put(e.nodes[r].shape.DType, vals[r].flat)
			vals[r] = nil
			mem.release(r)
		}
	}
	for i, prm := range e.params { // donated inputs are used up
		if p.owned[prm.idx] {
			if buf, ok := inputs[i].(*Buffer); ok {
				buf.flat, buf.packed, buf.pool, buf.weight, buf.weightBF16, buf.q4 = nil, nil, nil, nil, nil, nil
			}
		}
	}
	e.b.pool.age()
	mem.done()
	return e.collect(p, vals), nil
}

// collect returns the outputs, copying any whose storage the caller
// already holds (an input or constant) or that an earlier output shares.
func (e *Executable) collect(p *plan, vals []*Buffer) []backends.Buffer {
	out := make([]backends.Buffer, len(e.outputs))
	given := map[int]bool{}
	for i, o := range e.outputs {
		v, r := vals[o.idx], p.root[o.idx]
		owned := p.owned[r] && !given[r]
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
