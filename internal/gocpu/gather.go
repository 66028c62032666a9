package gocpu

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/shapeinference"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

func init() { register(backends.OpTypeGather) }

// gatherPlan is XLA's Gather, resolved at build time: for each "batch"
// position of the start indices, one slice of the operand (sliceSizes,
// collapsed axes dropped) is copied to the output.
type gatherPlan struct {
	operand, out      shapes.Shape
	indexAxis         int
	startMap          []int // operand axis of each index vector component
	sliceSizes        []int
	idxDims           []int // start indices' dims
	batchOutAxes      []int // output axes of the batch positions, in order
	sliceOutStride    []int // per operand axis: output stride (0 when collapsed)
	operandStride     []int
	batchCount, ivLen int
}

// Gather implements backends.Builder.
func (b *Builder) Gather(operand, startIndices backends.Op, indexAxis int, offsetOutAxes, collapsedAxes,
	startMap, sliceSizes []int, _ bool) (backends.Op, error) {
	in, err := b.nodes2("Gather", operand, startIndices)
	if err != nil {
		return nil, err
	}
	shape, err := shapeinference.Gather(in[0].shape, in[1].shape, indexAxis, offsetOutAxes, collapsedAxes,
		startMap, sliceSizes, false)
	if err != nil {
		return nil, err
	}
	p := &gatherPlan{operand: in[0].shape, out: shape, indexAxis: indexAxis, startMap: slices.Clone(startMap),
		sliceSizes: slices.Clone(sliceSizes), idxDims: slices.Clone(in[1].shape.Dimensions)}
	p.plan(offsetOutAxes, collapsedAxes)
	if n := b.fuseGatherBF16(p, in[0], in[1], offsetOutAxes, collapsedAxes); n != nil {
		return n, nil
	}
	return b.newNode(backends.OpTypeGather, shape, p.run, in[0], in[1]), nil
}

func (p *gatherPlan) plan(offsetOutAxes, collapsedAxes []int) {
	outSt := strides(p.out.Dimensions)
	for ax := range p.out.Rank() {
		if !slices.Contains(offsetOutAxes, ax) {
			p.batchOutAxes = append(p.batchOutAxes, ax)
		}
	}
	p.sliceOutStride = make([]int, p.operand.Rank())
	k := 0
	for ax := range p.operand.Rank() {
		if slices.Contains(collapsedAxes, ax) {
			continue
		}
		p.sliceOutStride[ax] = outSt[offsetOutAxes[k]]
		k++
	}
	p.operandStride = strides(p.operand.Dimensions)
	p.batchCount, p.ivLen = 1, 1
	for ax, d := range p.idxDims {
		if ax == p.indexAxis {
			p.ivLen = d
		} else {
			p.batchCount *= d
		}
	}
	// batchOutAxes' strides in the output, in batch order.
	bs := make([]int, len(p.batchOutAxes))
	for i, ax := range p.batchOutAxes {
		bs[i] = outSt[ax]
	}
	p.batchOutAxes = bs
}

// indexAt returns index vector component c of batch position pos.
func (p *gatherPlan) indexAt(idx func(int) int64, pos, c int) int {
	// The start indices in row-major order with the index axis at
	// indexAxis (or a virtual last axis of 1 when indexAxis == rank).
	r := len(p.idxDims)
	off, rem, mul := 0, pos, 1
	for ax := r - 1; ax >= 0; ax-- {
		d := p.idxDims[ax]
		if ax == p.indexAxis {
			off += c * mul
		} else {
			off += (rem % d) * mul
			rem /= d
		}
		mul *= d
	}
	return int(idx(off))
}

func (p *gatherPlan) run(x *runCtx, in []*Buffer) (*Buffer, error) {
	o := x.alloc(p.out, false)
	idx := intsOf(in[1].flat)
	start := make([]int, p.operand.Rank())
	bdims := make([]int, 0, len(p.idxDims))
	for ax, d := range p.idxDims {
		if ax != p.indexAxis {
			bdims = append(bdims, d)
		}
	}
	for pos := 0; pos < p.batchCount; pos++ {
		clear(start)
		for c := 0; c < p.ivLen; c++ {
			ax := p.startMap[c]
			s := p.indexAt(idx, pos, c)
			start[ax] = min(max(s, 0), p.operand.Dimensions[ax]-p.sliceSizes[ax])
		}
		outOff, rem := 0, pos
		for i := len(bdims) - 1; i >= 0; i-- {
			outOff += (rem % bdims[i]) * p.batchOutAxes[i]
			rem /= bdims[i]
		}
		inOff := 0
		for ax, s := range start {
			inOff += s * p.operandStride[ax]
		}
		p.copySlice(o.flat, outOff, in[0].flat, inOff)
	}
	return o, nil
}

// copySlice copies one slice (sliceSizes at inOff) to outOff.
func (p *gatherPlan) copySlice(dst any, outOff int, src any, inOff int) {
	r := len(p.sliceSizes)
	idx := make([]int, r)
	n := 1
	for _, d := range p.sliceSizes {
		n *= d
	}
	o, i := outOff, inOff
	last := r - 1
	for done := 0; done < n; {
		run := p.sliceSizes[last]
		if p.sliceOutStride[last] == 1 && p.operandStride[last] == 1 {
			copySlice(dst, o, src, i, run)
		} else {
			for j := 0; j < run; j++ {
				copySlice(dst, o+j*p.sliceOutStride[last], src, i+j*p.operandStride[last], 1)
			}
		}
		done += run
		for ax := last - 1; ax >= 0; ax-- {
			idx[ax]++
			o += p.sliceOutStride[ax]
			i += p.operandStride[ax]
			if idx[ax] < p.sliceSizes[ax] {
				break
			}
			o -= p.sliceOutStride[ax] * p.sliceSizes[ax]
			i -= p.operandStride[ax] * p.sliceSizes[ax]
			idx[ax] = 0
		}
	}
}

// intsOf reads an integer index tensor.
func intsOf(flat any) func(int) int64 {
	switch f := flat.(type) {
	case []int32:
		return func(i int) int64 { return int64(f[i]) }
	case []int64:
		return func(i int) int64 { return f[i] }
	}
	get := toFloat64s(flat)
	return func(i int) int64 { return int64(get(i)) }
}
