package models

import (
	"fmt"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/x448/float16"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/internal/par"
	"github.com/goeval/goeval/models/safetensors"
)

// VariablePath maps a checkpoint tensor name to its context scope and
// variable name: "model.layers.3.mlp.up_proj.weight" →
// ("/model/layers/3/mlp/up_proj", "weight"). No other renaming exists.
func VariablePath(name string) (scope, varName string) {
	i := strings.LastIndexByte(name, '.')
	return "/" + strings.ReplaceAll(name[:i], ".", "/"), name[i+1:]
}

// Param returns the graph node of checkpoint tensor name. It panics if the
// tensor was not loaded (LoadWeights checks coverage before any graph is
// built, so this means a bug in a graph builder).
func Param(ctx *context.Context, g *graph.Graph, name string) *graph.Node {
	if r := adapterVar(ctx, g, name, ""); r != nil {
		return r // separate-mode adapter's replacement (modules_to_save), lora_graph.go
	}
	scope, v := VariablePath(name)
	variable := ctx.GetVariableByScopeAndName(scope, v)
	if variable == nil {
		if t := paramT(ctx, g, name); t != nil {
			return graph.Transpose(t, 0, 1) // stored [in, out] (storesTransposed)
		}
		if w := unpermuted(ctx, g, name); w != nil {
			return w // packed with its input columns permuted (q4perm.go)
		}
		if w := unpackedQ4(ctx, g, name); w != nil {
			return w // packed for the graph (q4graph.go)
		}
		panic(fmt.Errorf("models: weight %q was not loaded", name))
	}
	return computeValue(ctx, variable.ValueGraph(g))
}

// computeDTypeParam is the root context parameter that holds the compute
// dtype's name when weight matrices are stored in another dtype
// (LoadOptions.WeightDType).
const computeDTypeParam = "goeval_compute_dtype"

// computeValue is a weight's node converted to the compute dtype where it
// is stored in another (weight-only bf16): the backend reads the stored
// weight in its consumer (gocpu fuses the conversion into products and
// gathers) instead of keeping a converted copy.
func computeValue(ctx *context.Context, w *graph.Node) *graph.Node {
	name := context.GetParamOr(ctx.InAbsPath("/"), computeDTypeParam, "")
	if name == "" {
		return w
	}
	dt, err := dtypes.DTypeString(name)
	if err != nil || dt == w.DType() {
		return w
	}
	return graph.ConvertDType(w, dt)
}

// transposedVar is the variable name of a linear weight stored as [in, out]
// instead of the checkpoint's [out, in] (storesTransposed).
const transposedVar = "weight_t"

// storesTransposed reports whether checkpoint tensor name of the given rank
// is kept transposed, [in, out], on backend: every rank-2 ".weight" but the
// token embedding (gathered by row, and the tied LM head) on XLA. XLA's CPU
// compiler runs x·W on [in, out] up to 3× faster than x·Wᵀ on [out, in] at
// the few rows of a decode step (and at one row with in > out it copied the
// weight on every call). The pure-Go backends keep the checkpoint layout:
// simplego's tests pin its bits, and gocpu multiplies by [out, in] weights
// in place (as the left operand of wᵀ's product, no packed copy).
func storesTransposed(backend backends.Backend, name string, rank int) bool {
	return rank == 2 && backend.String() != "go" && backend.String() != gocpu.Name &&
		strings.HasSuffix(name, ".weight") && name != embedName
}

// paramT returns the [in, out] variable of linear weight name when it was
// stored transposed, else nil.
func paramT(ctx *context.Context, g *graph.Graph, name string) *graph.Node {
	scope, _ := VariablePath(name)
	if variable := ctx.GetVariableByScopeAndName(scope, transposedVar); variable != nil {
		return computeValue(ctx, variable.ValueGraph(g))
	}
	return nil
}

// LoadWeights checks s against cfg strictly (CheckTensors: missing,
// unexpected or misshapen tensors are errors naming tensor and file) and
// stores every tensor in ctx as a variable in dtype (Float32, BFloat16 or
// Float16, rounded to nearest: flatIn) on the backend's device 0.
//
// Memory: F32 data is read straight from the read-only mapping into the
// device buffer (the one copy), and the mapped pages are then dropped from
// the page cache mapping (madvise DONTNEED), so peak RSS stays near the size
// of the weights held by the backend.
func LoadWeights(ctx *context.Context, backend backends.Backend, cfg *Config, s Tensors, dtype dtypes.DType) error {
	return LoadWeightsWith(ctx, backend, cfg, s, dtype, nil)
}

// WeightTransform rewrites one checkpoint tensor before it is stored (a
// merged LoRA adapter: Adapter.MergeInto). It must not write into data
// (a read-only mapping) and returns data itself when it changes nothing.
type WeightTransform func(name string, data []float32, shape []int) ([]float32, error)

// LoadWeightsWith is LoadWeights with every tensor passed through tf
// (nil: none) after conversion to float32.
func LoadWeightsWith(ctx *context.Context, backend backends.Backend, cfg *Config, s Tensors, dtype dtypes.DType, tf WeightTransform) error {
	return loadWeights(ctx, backend, cfg, s, weightDTypes{compute: dtype, held: dtype, matrix: dtype}, tf)
}

// loadWeights is LoadWeightsWith with the weights rounded to dt.held and
// the matrices stored in dt.matrix (weightDTypes); it records the compute
// dtype on ctx when they differ (computeValue).
func loadWeights(ctx *context.Context, backend backends.Backend, cfg *Config, s Tensors, dt weightDTypes, tf WeightTransform) error {
	if err := dt.check(); err != nil {
		return fmt.Errorf("load weights: %w", err)
	}
	if err := CheckTensors(cfg, s); err != nil {
		return err
	}
	if dt.matrix != dt.compute {
		ctx.InAbsPath("/").SetParam(computeDTypeParam, dt.compute.String())
	}
	rounded := tf // for the tensors stored in dt.compute
	if dt.held != dt.compute {
		rounded = roundedTo(dt.held, tf)
	}
	for _, name := range s.Names() {
		if IgnoredTensor(name) {
			continue
		}
		info, _ := s.Info(name)
		transpose := storesTransposed(backend, name, len(info.Shape))
		t, perm, done, err := loadQ4(backend, s, name, dt, tf, transpose)
		if err == nil && perm != nil {
			storePermuted(ctx, name, t, perm)
			continue
		}
		if err == nil && !done {
			if done, err = loadQ4Graph(ctx, backend, s, name, dt, tf); err == nil && done {
				continue // packed for the graph (q4graph.go)
			}
		}
		dtype := dt.of(name, len(info.Shape))
		if dtype == dtypes.Float32 && int8CodesBF16(backend, s, name) {
			dtype = dtypes.BFloat16
		}
		if err == nil && !done && dtype != dt.compute && gatheredOnly(cfg, name) {
			t, done, err = loadMappedBF16(backend, s, name, info, tf, transpose)
		}
		switch {
		case err != nil || done:
		case dtype != dt.compute:
			t, err = loadMatrixBF16(backend, s, name, info, tf, transpose)
		default:
			t, err = loadTensor(backend, s, name, info, dtype, rounded, transpose)
		}
		if err != nil {
			return fmt.Errorf("load %s from %s: %w", name, info.File, err)
		}
		scope, v := VariablePath(name)
		if transpose {
			v = transposedVar
		}
		ctx.InAbsPath(scope).VariableWithValue(v, t).Trainable = false
	}
	return nil
}

// loadTensor converts one checkpoint tensor into a device tensor of dtype.
func loadTensor(backend backends.Backend, s Tensors, name string, info safetensors.TensorInfo, dtype dtypes.DType, tf WeightTransform, transpose bool) (*tensors.Tensor, error) {
	if dtype == dtypes.BFloat16 && tf == nil {
		return loadMatrixBF16(backend, s, name, info, nil, transpose) // no float32 copy
	}
	data, err := s.Float32(name)
	if err != nil {
		return nil, err
	}
	mapped := data
	if tf != nil {
		if data, err = tf(name, data, info.Shape); err != nil {
			return nil, err
		}
	}
	shape := shapes.Make(dtype, info.Shape...)
	if shape.Size() != len(data) {
		return nil, fmt.Errorf("shape %v holds %d values, file has %d", info.Shape, shape.Size(), len(data))
	}
	if transpose {
		data = transposed(data, info.Shape[0], info.Shape[1])
		shape = shapes.Make(dtype, info.Shape[1], info.Shape[0])
	}
	flat := flatIn(data, dtype)
	var buf backends.Buffer
	if backend.HasSharedBuffers() {
		var dst any
		buf, dst, err = backend.NewSharedBuffer(0, shape)
		if err == nil {
			copyFlat(dst, flat, info.DType == "F32" && sameSlice(data, mapped))
		}
	} else {
		buf, err = backend.BufferFromFlatData(0, flat, shape)
	}
	if err != nil {
		return nil, err
	}
	if info.DType == "F32" {
		releasePages(mapped)
	}
	return tensors.FromBuffer(backend, buf)
}

// copyFlat copies a []float32 or []bfloat16.BFloat16 into dst of the same
// type. With release (src is the file mapping) it copies in 16 MiB chunks
// and drops each chunk's pages, so a large tensor is never resident twice.
func copyFlat(dst, src any, release bool) {
	switch d := dst.(type) {
	case []float32:
		from := src.([]float32)
		const chunk = 4 << 20
		for i := 0; i < len(from); i += chunk {
			j := min(i+chunk, len(from))
			copy(d[i:j], from[i:j])
			if release {
				releasePages(from[i:j])
			}
		}
	case []bfloat16.BFloat16:
		copy(d, src.([]bfloat16.BFloat16))
	case []float16.Float16:
		copy(d, src.([]float16.Float16))
	default:
		panic(fmt.Sprintf("models: unexpected buffer type %T", dst))
	}
}

// sameSlice reports whether a and b are the same slice (same start, length).
func sameSlice(a, b []float32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// transposed returns the [cols, rows] transpose of a row-major [rows, cols]
// matrix, in blocks of 64×64 for the caches, bands of 64 rows on all
// processors.
func transposed[T any](data []T, rows, cols int) []T {
	out := make([]T, len(data))
	const blk = 64
	par.For((rows+blk-1)/blk, 4, func(b0, b1 int) {
		for r0 := b0 * blk; r0 < min(b1*blk, rows); r0 += blk {
			for c0 := 0; c0 < cols; c0 += blk {
				for r := r0; r < min(r0+blk, rows); r++ {
					for c := c0; c < min(c0+blk, cols); c++ {
						out[c*rows+r] = data[r*cols+c]
					}
				}
			}
		}
	})
	return out
}
