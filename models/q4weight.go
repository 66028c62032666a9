package models

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/internal/gemm"
)

// Q4Weight is a 4-bit linear weight [out, in] in memory as a checkpoint
// reader has it before dequantization (bitsandbytes' layout; quantizing a
// float weight at load produces the same): element i of the row-major
// weight is code q_i, in byte i/2, the high nibble when i is even, and
// its value is
//
//	Table[q_i]·Absmax[i/Blocksize]   (+ Offset[i/Blocksize], rounded, when Offset is set)
//
// in float32, rounded once, as bitsandbytes' dequantize_4bit computes it
// (Table: nf4's or fp4's code book; for GPTQ/AWQ int4 0…15 with Offset
// −zero·scale). Absmax holds the dequantized scales (double quantization
// already undone).
type Q4Weight struct {
	Shape     [2]int // [out, in]
	Codes     []byte // ⌈out·in/2⌉ bytes
	Absmax    []float32
	Offset    []float32 // nil, or one per block
	Blocksize int
	Table     [16]float32
	// Perm, when set, is the input order of the columns: column j holds
	// input Perm[j] (GPTQ desc_act weights in group order; q4perm.go).
	Perm []int32
}

// Packed returns w as gemm's packed 4-bit weight (sharing its slices), or
// an error where w's blocks do not lie within rows (in not a multiple of
// Blocksize) or w is inconsistent.
func (w *Q4Weight) Packed() (*gemm.PackedQ4, error) {
	out, in := w.Shape[0], w.Shape[1]
	if w.Blocksize <= 0 || in%w.Blocksize != 0 || w.Blocksize%2 != 0 {
		return nil, fmt.Errorf("4-bit weight [%d, %d]: blocks of %d do not lie within rows", out, in, w.Blocksize)
	}
	p := &gemm.PackedQ4{K: in, N: out, Block: w.Blocksize, Codes: w.Codes, Scale: w.Absmax, Offset: w.Offset, Table: w.Table}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// q4Source is a Tensors view that can hand out a quantized weight in its
// 4-bit form (bnbSet; intQuantSet for GPTQ and AWQ 4-bit): ok is false
// for any other tensor.
type q4Source interface {
	q4Weight(name string) (w *Q4Weight, ok bool, err error)
	// q4Where says, for the load log, which quantized weights q4Weight
	// hands out ("where …"), or is "" where it hands out none.
	q4Where() string
}

// q4Backend is a backend that holds packed 4-bit weights and multiplies
// by them (goeval's pure-Go backend, internal/gocpu).
type q4Backend interface {
	BufferFromPackedQ4(q *gemm.PackedQ4) (backends.Buffer, error)
}

// loadQ4 returns checkpoint tensor name as a packed 4-bit weight on
// backend, or ok false where it stays on the dequantizing path: a backend
// without packed 4-bit weights, a tensor that is not 4-bit, a transform
// (a merged adapter), a compute dtype other than float32, or blocks
// across rows. Under weight-only bf16 the packed values are rounded to
// bfloat16 where they are looked up (PackedQ4.RoundBF16): the values the
// dequantizing load holds.
//
// A weight with its input columns permuted (Q4Weight.Perm) comes with perm.
func loadQ4(backend backends.Backend, s Tensors, name string, dt weightDTypes, tf WeightTransform, transpose bool) (t *tensors.Tensor, perm []int32, ok bool, err error) {
	qb, isQB := backend.(q4Backend)
	src, isSrc := s.(q4Source)
	f32 := dt.held == dtypes.Float32 && dt.matrix == dtypes.Float32
	bf16 := dt.held == dtypes.BFloat16 && dt.matrix == dtypes.BFloat16
	if !dt.packQ4 || !isQB || !isSrc || tf != nil || transpose || dt.compute != dtypes.Float32 || !(f32 || bf16) {
		return nil, nil, false, nil
	}
	w, ok, err := src.q4Weight(name)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	p, err := w.Packed()
	if err != nil {
		return nil, nil, false, nil // blocks across rows: dequantized
	}
	p.RoundBF16 = bf16
	buf, err := qb.BufferFromPackedQ4(p)
	if err != nil {
		return nil, nil, false, err
	}
	t, err = tensors.FromBuffer(backend, buf)
	return t, w.Perm, err == nil, err
}

// q4Where implements q4Source.
func (b *bnbSet) q4Where() string { return "where their blocks lie within rows" }

// q4Weight implements q4Source: a 2-D quantized weight's codes and
// (dequantized) absmax, copied out of the file mapping, whose pages are
// then dropped (so loading peaks near the packed weights).
func (b *bnbSet) q4Weight(name string) (*Q4Weight, bool, error) {
	w, ok := b.weights[name]
	if !ok || len(w.state.Shape) != 2 {
		return nil, false, nil
	}
	packed, err := b.Bytes(name)
	if err != nil {
		return nil, false, err
	}
	absmax, err := b.absmax(w)
	if err != nil {
		return nil, false, err
	}
	q := &Q4Weight{Shape: [2]int{w.state.Shape[0], w.state.Shape[1]}, Codes: slices.Clone(packed),
		Absmax: slices.Clone(absmax), Blocksize: w.state.Blocksize, Table: nf4Code}
	releaseBytes(packed)
	if w.state.QuantType == "fp4" {
		q.Table = fp4Code
	}
	return q, true, nil
}
