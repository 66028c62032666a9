package gocpu

import (
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/gemm"
	"github.com/goeval/goeval/internal/procfs"
)

// LLM.int8's exact integer products (models/nn.Int8Linear's integer form):
//
//	DotGeneral(ConvertDType(codes, Int32), ConvertDType(weight, Int32))
//
// of quantized activations (float32 integers [M, K]) and a stored weight
// [N, K] of int8 codes (held as float32 or bfloat16) becomes one node where
// the CPU has AVX512_VNNI (gemm.HasInt8MatMul): the codes converted to
// int8, the weight read through an interleaved int8 copy made at its
// first product (kept on its buffer; streamed a block of rows at a time
// where the copies would crowd the memory: int8CopyFits), and the sums
// computed by VPDPBUSD — the same integers as the int32 DotGeneral, which
// stays the path for values that are no int8 code. The weight keeps its
// layout: another product may read it packed (the outlier columns').

// HasInt8Dot reports whether this CPU runs the integer form of LLM.int8's
// products fused (AVX512_VNNI); elsewhere it runs as a plain int32 loop,
// so models keep the float32 form there.
func HasInt8Dot() bool { return gemm.HasInt8MatMul() }

// int32Of returns x when n is ConvertDType(x, Int32) of an x of dtype dt
// (any of them), else nil.
func int32Of(n *node, dt ...dtypes.DType) *node {
	if !fuseOps || n.op != backends.OpTypeConvertDType || n.shape.DType != dtypes.Int32 {
		return nil
	}
	for _, d := range dt {
		if n.inputs[0].shape.DType == d {
			return n.inputs[0]
		}
	}
	return nil
}

// int8MaxK is the longest row the integer sums hold (gemm's maxIntK).
const int8MaxK = 65536

// fuseDotInt8 returns the fused node for the product p of lhs and rhs when
// they are the integer form above with the weight read whole, else nil.
func (b *Builder) fuseDotInt8(p *dotPlan, lhs, rhs *node) *node {
	if !HasInt8Dot() || p.out.DType != dtypes.Int32 || p.batch != 1 || p.lhsPerm != nil || p.rhsPerm != nil || !p.transB || p.k > int8MaxK {
		return nil
	}
	a, w := int32Of(lhs, dtypes.Float32), int32Of(rhs, dtypes.Float32, dtypes.BFloat16)
	if a == nil || w == nil || w.param < 0 {
		return nil
	}
	n := b.newNode(backends.OpTypeDotGeneral, p.out, p.runInt8, a, w)
	n.dot, n.fused = p, "DotInt8"
	return n
}

// fuseInt8ToF32 returns the fused node for ConvertDType(x, Float32) when x
// is a DotInt8 node (the sums as LLM.int8's graph uses them), else nil.
func (b *Builder) fuseInt8ToF32(x *node, dtype dtypes.DType) *node {
	if !fuseOps || dtype != dtypes.Float32 || x.fused != "DotInt8" {
		return nil
	}
	shape := x.shape.Clone()
	shape.DType = dtypes.Float32
	n := b.newNode(backends.OpTypeConvertDType, shape, x.dot.runInt8F32, x.inputs...)
	n.fused = "DotInt8F32"
	return n
}

// runInt8 is the fused integer product: c [M, N] int32.
func (p *dotPlan) runInt8(x *runCtx, in []*Buffer) (*Buffer, error) {
	o := x.alloc(p.out, false)
	p.int8Sums(x, in, o.flat.([]int32))
	return o, nil
}

// runInt8F32 is runInt8 with the sums converted to float32 (rounded to
// nearest, as ConvertDType does).
func (p *dotPlan) runInt8F32(x *runCtx, in []*Buffer) (*Buffer, error) {
	shape := p.out.Clone()
	shape.DType = dtypes.Float32
	o := x.alloc(shape, false)
	sums := x.b.pool.get(dtypes.Int32, p.m*p.n, false).([]int32)
	defer x.b.pool.put(dtypes.Int32, sums)
	p.int8Sums(x, in, sums)
	convertDirect(x, o.flat, sums)
	return o, nil
}

// int8Sums sets c [M, N] to the integer product of in's codes and weight.
func (p *dotPlan) int8Sums(x *runCtx, in []*Buffer, c []int32) {
	af := in[0].flat.([]float32)
	pc, _ := int8Scratch.Get().(*[]int8)
	if pc == nil || cap(*pc) < p.m*p.k {
		pc = new(make([]int8, p.m*p.k))
	}
	defer int8Scratch.Put(pc)
	codes := (*pc)[:p.m*p.k]
	if gemm.Int8Codes(codes, af) {
		w, bad := in[1].int8Weight(p.n, p.k)
		if w != nil {
			gemm.MatMulInt8(c, p.n, codes, p.m, w, x.threads())
			return
		}
		if !bad && gemm.MatMulInt8Rows(c, p.n, codes, p.m, p.n, p.k, in[1].rowReader(p.k), x.threads()) {
			return
		}
	}
	p.runInt8Generic(in, c) // values that are no int8 codes: the int32 product as written
}

// int8Scratch holds the activation codes of runInt8 calls.
var int8Scratch sync.Pool

// runInt8Generic is the unfused graph's product: both operands converted
// to int32 as ConvertDType does (truncated), summed in k order.
func (p *dotPlan) runInt8Generic(in []*Buffer, c []int32) {
	af, rows := in[0].flat.([]float32), in[1].rowReader(p.k)
	w := make([]float32, p.k)
	for j := range p.n {
		rows(j, j+1, w)
		for r := range p.m {
			var s int32
			for k, v := range w {
				s += int32(af[r*p.k+k]) * int32(v)
			}
			c[r*p.n+j] = s
		}
	}
}

// int8Copy is a weight's interleaved int8 copy (Buffer.int8w).
type int8Copy struct {
	once sync.Once
	w    *gemm.Int8Matrix
	bad  bool // a value is no int8 code
}

// int8Mu guards Buffer.int8w's creation.
var int8Mu sync.Mutex

// int8Weight returns the int8 copy of the weight [n, k] this buffer holds
// (n·k bytes), made on first use from whichever layout it has; nil where
// it does not fit (int8CopyFits), or where a value is no int8 code (bad,
// found when the copy was made).
func (b *Buffer) int8Weight(n, k int) (w *gemm.Int8Matrix, bad bool) {
	s := derived(&int8Mu, &b.int8w)
	s.once.Do(func() {
		if !int8CopyFits(int64(n) * int64(k)) {
			return // streamed per product instead (MatMulInt8Rows)
		}
		var ok bool
		s.w, ok = gemm.Int8MatrixFrom(n, k, b.rowReader(k))
		s.bad = !ok
	})
	return s.w, s.bad
}

// int8CopyFits reports whether a copy of size bytes leaves room: the
// memory available is at least twice it, and a quarter of the machine's
// stays available after it (every weight of a model takes a copy, so the
// copies stop, and the rest stream, before they crowd the activations and
// the KV cache out). Where /proc/meminfo is missing it fits.
func int8CopyFits(size int64) bool {
	avail := procfs.KB("/proc/meminfo", "MemAvailable")
	total := procfs.KB("/proc/meminfo", "MemTotal")
	return avail <= 0 || avail >= 2*size && avail-size >= total/4
}
