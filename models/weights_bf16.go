package models

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/models/safetensors"
)

// loadMatrixBF16 stores checkpoint tensor name as a bfloat16 device
// tensor for weight-only bf16 (LoadOptions.WeightDType): BF16 values
// copied, F32 and F16 ones rounded to nearest even. Untransformed, it is
// written from the file mapping straight into the backend's shared
// buffer, the mapped pages dropped behind (safetensors.BF16Into): no f32
// copy, so loading peaks near the bf16 weights. A transform (a merged
// adapter) or a transposed layout goes through float32 first.
func loadMatrixBF16(backend backends.Backend, s Tensors, name string, info safetensors.TensorInfo, tf WeightTransform, transpose bool) (*tensors.Tensor, error) {
	if tf != nil || transpose || !backend.HasSharedBuffers() {
		return loadMatrixBF16Via32(backend, s, name, info, tf, transpose)
	}
	buf, dst, err := backend.NewSharedBuffer(0, shapes.Make(dtypes.BFloat16, info.Shape...))
	if err != nil {
		return nil, err
	}
	if err := s.BF16Into(name, bits16(dst.([]bfloat16.BFloat16)), releaseBytes); err != nil {
		return nil, err
	}
	return tensors.FromBuffer(backend, buf)
}

// loadMatrixBF16Via32 is loadMatrixBF16 through a float32 copy.
func loadMatrixBF16Via32(backend backends.Backend, s Tensors, name string, info safetensors.TensorInfo, tf WeightTransform, transpose bool) (*tensors.Tensor, error) {
	data, err := s.Float32(name)
	if err != nil {
		return nil, err
	}
	if tf != nil {
		if data, err = tf(name, data, info.Shape); err != nil {
			return nil, err
		}
	}
	shape := shapes.Make(dtypes.BFloat16, info.Shape...)
	if shape.Size() != len(data) {
		return nil, fmt.Errorf("shape %v holds %d values, file has %d", info.Shape, shape.Size(), len(data))
	}
	if transpose {
		data = transposed(data, info.Shape[0], info.Shape[1])
		shape = shapes.Make(dtypes.BFloat16, info.Shape[1], info.Shape[0])
	}
	bf := make([]bfloat16.BFloat16, len(data))
	for i, f := range data {
		bf[i] = bfloat16.BFloat16(safetensors.Float32ToBF16(f))
	}
	buf, err := backend.BufferFromFlatData(0, bf, shape)
	if err != nil {
		return nil, err
	}
	return tensors.FromBuffer(backend, buf)
}

// bits16 views bfloat16 values as their bit patterns.
func bits16(f []bfloat16.BFloat16) []uint16 {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&f[0])), len(f))
}

// weightDTypes are how Load stores weights: the graphs' compute dtype,
// the precision the weights are rounded to (held) and the dtype the
// weight matrices are stored in (matrix: held for weight-only bf16, else
// compute); packQ4: 4-bit weights stay packed where the backend can
// (loadQ4; LoadOptions.Dequantize4Bit unset).
type weightDTypes struct {
	compute, held, matrix dtypes.DType
	packQ4                bool
}

// of is the dtype tensor name of the given rank is stored in.
func (w weightDTypes) of(name string, rank int) dtypes.DType {
	if rank == 2 && strings.HasSuffix(name, ".weight") {
		return w.matrix
	}
	return w.compute
}

// check reports a combination Load does not store.
func (w weightDTypes) check() error {
	if !floatDType(w.compute) || !floatDType(w.held) {
		return fmt.Errorf("dtype %s (held %s) not supported (use float32, bfloat16 or float16)", w.compute, w.held)
	}
	if w.held != w.compute && w.compute != dtypes.Float32 {
		return fmt.Errorf("weights held in %s, computed in %s: not supported (half-precision weights with float32 compute are)", w.held, w.compute)
	}
	if w.matrix != w.compute && (w.compute != dtypes.Float32 || w.matrix != dtypes.BFloat16) {
		return fmt.Errorf("weights stored as %s, computed in %s: not supported (bfloat16 weights with float32 compute are)", w.matrix, w.compute)
	}
	return nil
}
