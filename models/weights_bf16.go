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
// tensor: for weight-only bf16 (LoadOptions.WeightDType), and for any
// tensor loaded in bfloat16 without a transform. BF16 values are copied,
// F32 and F16 ones rounded to nearest even (safetensors.BF16Into, on all
// processors), with no float32 copy; the mapped pages are dropped behind.
// Where the backend shares buffers and nothing is transposed, the values
// go straight into its buffer, so loading peaks near the bf16 weights;
// else into one bf16 slice (transposed in bf16) that the backend copies.
// A transform (a merged adapter) goes through float32 first.
func loadMatrixBF16(backend backends.Backend, s Tensors, name string, info safetensors.TensorInfo, tf WeightTransform, transpose bool) (*tensors.Tensor, error) {
	if tf != nil {
		return loadMatrixBF16Via32(backend, s, name, info, tf, transpose)
	}
	shape := shapes.Make(dtypes.BFloat16, info.Shape...)
	if !transpose && backend.HasSharedBuffers() {
		buf, dst, err := backend.NewSharedBuffer(0, shape)
		if err != nil {
			return nil, err
		}
		if err := s.BF16Into(name, bits16(dst.([]bfloat16.BFloat16)), releaseBytes); err != nil {
			return nil, err
		}
		return tensors.FromBuffer(backend, buf)
	}
	bf, shape, err := hostBF16(s, name, info, transpose)
	if err != nil {
		return nil, err
	}
	buf, err := backend.BufferFromFlatData(0, bf, shape)
	if err != nil {
		return nil, err
	}
	return tensors.FromBuffer(backend, buf)
}

// hostBF16 is tensor name in bfloat16 in a new slice, transposed to
// [in, out] with transpose, and its shape.
func hostBF16(s Tensors, name string, info safetensors.TensorInfo, transpose bool) ([]bfloat16.BFloat16, shapes.Shape, error) {
	shape := shapes.Make(dtypes.BFloat16, info.Shape...)
	bf := make([]bfloat16.BFloat16, shape.Size())
	if err := s.BF16Into(name, bits16(bf), releaseBytes); err != nil {
		return nil, shape, err
	}
	if transpose {
		bf = transposed(bf, info.Shape[0], info.Shape[1])
		shape = shapes.Make(dtypes.BFloat16, info.Shape[1], info.Shape[0])
	}
	return bf, shape, nil
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
	buf, err := backend.BufferFromFlatData(0, flatIn(data, dtypes.BFloat16), shape)
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
