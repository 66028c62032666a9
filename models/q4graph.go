package models

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
)

// 4-bit weights packed for the graph (XLA). A backend that cannot hold
// packed 4-bit buffers (q4Backend) still keeps a Q4Weight packed on the
// device, as plain tensors the graph dequantizes where the weight is used
// (q4graph_ops.go). In the layout XLA multiplies by (storesTransposed:
// [in, out]), a weight W [out, in] of blocks of B inputs is held in its
// scope as
//
//	q4_codes   uint8 [in/2, out]   byte (p, o): inputs 2p (high nibble) and 2p+1 of output o
//	q4_scale   float32 [in/B, out] Q4Weight.Absmax transposed
//	q4_offset  float32 [in/B, out] Q4Weight.Offset transposed (GPTQ/AWQ)
//	q4_table   float32 [16]        the code book (nf4, fp4; none for GPTQ/AWQ's 0…15)
//	q4_perm, q4_unperm int32 [in]  Q4Weight.Perm and its inverse (desc_act)
//
// The codes are Q4Weight.Codes as a byte matrix [out, in/2] transposed,
// so the nibble order within a byte is the checkpoint's. An eighth of
// float32's bytes (plus the scales); the dequantized weight exists only
// while the graph multiplies by it.

// Variable names of a 4-bit weight packed for the graph.
const (
	q4CodesVar  = "q4_codes"
	q4ScaleVar  = "q4_scale"
	q4OffsetVar = "q4_offset"
	q4TableVar  = "q4_table"
	q4PermVar   = "q4_perm"
	q4UnpermVar = "q4_unperm"
)

// Root context parameters naming the dtype the dequantizing load would
// hold a weight matrix in (its values rounded to it) and the compute
// dtype, for the graph to round the same way (q4graph_ops.go).
const (
	q4HeldParam    = "goeval_q4_held_dtype"
	q4ComputeParam = "goeval_q4_compute_dtype"
)

// q4InGraph reports whether backend keeps 4-bit weights packed for the
// graph: XLA (a backend that is neither of the pure-Go ones).
func q4InGraph(backend backends.Backend) bool {
	_, packs := backend.(q4Backend)
	return !packs && backend.String() != "go" && backend.String() != gocpu.Name
}

// loadQ4Graph stores checkpoint tensor name in ctx packed for the graph
// and returns true, or false where it stays on the dequantizing path: a
// backend other than XLA's, a tensor that is not 4-bit, a transform (a
// merged adapter), or blocks across rows.
func loadQ4Graph(ctx *context.Context, backend backends.Backend, s Tensors, name string, dt weightDTypes, tf WeightTransform) (bool, error) {
	src, isSrc := s.(q4Source)
	if !dt.packQ4 || !isSrc || tf != nil || !q4InGraph(backend) {
		return false, nil
	}
	w, ok, err := src.q4Weight(name)
	if err != nil || !ok {
		return false, err
	}
	if _, err := w.Packed(); err != nil {
		return false, nil // blocks across rows: dequantized
	}
	root := ctx.InAbsPath("/")
	root.SetParam(q4HeldParam, dt.held.String())
	root.SetParam(q4ComputeParam, dt.compute.String())
	scope, _ := VariablePath(name)
	return true, storeQ4Graph(ctx.InAbsPath(scope), backend, w)
}

// storeQ4Graph stores w's tensors in scope c (the layout above).
func storeQ4Graph(c *context.Context, backend backends.Backend, w *Q4Weight) error {
	out, in := w.Shape[0], w.Shape[1]
	blocks := in / w.Blocksize
	put := func(v string, flat any, dt dtypes.DType, dims ...int) error {
		buf, err := backend.BufferFromFlatData(0, flat, shapes.Make(dt, dims...))
		if err != nil {
			return err
		}
		t, err := tensors.FromBuffer(backend, buf)
		if err != nil {
			return err
		}
		c.VariableWithValue(v, t).Trainable = false
		return nil
	}
	if err := put(q4CodesVar, transposeOf(w.Codes, out, in/2), dtypes.Uint8, in/2, out); err != nil {
		return err
	}
	if err := put(q4ScaleVar, transposeOf(w.Absmax, out, blocks), dtypes.Float32, blocks, out); err != nil {
		return err
	}
	if w.Offset != nil {
		if err := put(q4OffsetVar, transposeOf(w.Offset, out, blocks), dtypes.Float32, blocks, out); err != nil {
			return err
		}
	}
	if w.Table != int4Table {
		if err := put(q4TableVar, w.Table[:], dtypes.Float32, 16); err != nil {
			return err
		}
	}
	if w.Perm == nil {
		return nil
	}
	unperm := make([]int32, len(w.Perm))
	for j, i := range w.Perm {
		unperm[i] = int32(j)
	}
	if err := put(q4PermVar, w.Perm, dtypes.Int32, in); err != nil {
		return err
	}
	return put(q4UnpermVar, unperm, dtypes.Int32, in)
}

// transposeOf is the [cols, rows] transpose of a row-major [rows, cols]
// matrix.
func transposeOf[T any](m []T, rows, cols int) []T {
	out := make([]T, len(m))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = m[r*cols+c]
		}
	}
	return out
}

// NumParameters is the number of weight values in ctx, each 4-bit weight
// packed for the graph counted as its dense [out, in] (the count the same
// checkpoint dequantized at load gives; its scales, table and
// permutations not counted).
func NumParameters(ctx *context.Context) int {
	n := 0
	ctx.EnumerateVariables(func(v *context.Variable) {
		switch v.Name() {
		case q4CodesVar:
			n += 2 * v.Shape().Size()
		case q4ScaleVar, q4OffsetVar, q4TableVar, q4PermVar, q4UnpermVar:
		default:
			n += v.Shape().Size()
		}
	})
	return n
}
