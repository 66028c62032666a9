package models

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/x448/float16"

	"github.com/goeval/goeval/internal/par"
	"github.com/goeval/goeval/models/safetensors"
)

// flatIn converts float32 values into a new flat slice of dtype (Float32:
// data itself; BFloat16 and Float16: rounded to nearest, ties to even, as
// torch's Tensor.to rounds a checkpoint into the dtype it is loaded in).
func flatIn(data []float32, dtype dtypes.DType) any {
	switch dtype {
	case dtypes.BFloat16:
		out := make([]bfloat16.BFloat16, len(data))
		par.For(len(data), roundGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = bfloat16.FromBits(safetensors.Float32ToBF16(data[i]))
			}
		})
		return out
	case dtypes.Float16:
		out := make([]float16.Float16, len(data))
		par.For(len(data), roundGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = float16.Fromfloat32(data[i])
			}
		})
		return out
	case dtypes.Float32:
		return data
	}
	panic(fmt.Sprintf("models: no conversion to %s", dtype))
}

// roundGrain is the fewest values a goroutine of flatIn rounds.
const roundGrain = 1 << 18

// floatDType reports whether dtype is one LoadWeights stores weights in.
func floatDType(dtype dtypes.DType) bool {
	return dtype == dtypes.Float32 || dtype == dtypes.BFloat16 || dtype == dtypes.Float16
}

// roundedTo returns tf (nil: none) followed by rounding every value to
// dtype (BFloat16 or Float16) and back to float32, in a new slice.
func roundedTo(dtype dtypes.DType, tf WeightTransform) WeightTransform {
	round := roundFunc(dtype)
	return func(name string, data []float32, shape []int) ([]float32, error) {
		if tf != nil {
			var err error
			if data, err = tf(name, data, shape); err != nil {
				return nil, err
			}
		}
		out := make([]float32, len(data))
		for i, f := range data {
			out[i] = round(f)
		}
		return out, nil
	}
}

// roundFunc rounds a float32 to the nearest value of dtype (ties to even),
// as flatIn converts.
func roundFunc(dtype dtypes.DType) func(float32) float32 {
	switch dtype {
	case dtypes.BFloat16:
		return func(f float32) float32 { return safetensors.BF16ToFloat32(safetensors.Float32ToBF16(f)) }
	case dtypes.Float16:
		return func(f float32) float32 { return float16.Fromfloat32(f).Float32() }
	}
	panic(fmt.Sprintf("models: no rounding to %s", dtype))
}
