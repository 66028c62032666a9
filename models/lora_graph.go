package models

import (
	"fmt"
	"strconv"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Separate (unmerged) LoRA: adapter i's factors live in the context under
// /lora/<i>/<module scope> as variables "A" [r, in] and "B" [out, r] (B
// already multiplied by the scale), plus "bias_delta" [out] when lora_B has a
// bias, and full replacement tensors (modules_to_save) under their own
// names. The base weights are shared by every adapter; a graph picks its
// adapter with SetActiveAdapter, so one loaded model serves base, A, B, ….

// loraParam is the graph parameter (root scope) holding the active adapter.
const loraParam = "goeval_lora_adapter"

// AdapterScope is the context scope of adapter index's tensor for base
// tensor name: ("/lora/0/model/layers/0/self_attn/q_proj", "weight").
func AdapterScope(index int, name string) (scope, varName string) {
	s, v := VariablePath(name)
	return "/lora/" + strconv.Itoa(index) + s, v
}

// LoadAdapterVariables stores adapter a as adapter number index in ctx for
// separate mode. Embedding LoRA (lora_embedding_A/B) is merged-mode only.
func LoadAdapterVariables(ctx *context.Context, backend backends.Backend, a *Adapter, index int, dtype dtypes.DType) error {
	put := func(name, v string, data []float32, dims ...int) error {
		scope, _ := AdapterScope(index, name)
		t, err := deviceTensor(backend, data, dtype, dims)
		if err != nil {
			return fmt.Errorf("adapter %s: %s: %w", a.Dir, name, err)
		}
		ctx.InAbsPath(scope).VariableWithValue(v, t).Trainable = false
		return nil
	}
	for _, w := range a.Targets() {
		if r, ok := a.Replace[w]; ok {
			scope, v := AdapterScope(index, w)
			t, err := deviceTensor(backend, r, dtype, a.shapes[w])
			if err != nil {
				return fmt.Errorf("adapter %s: %s: %w", a.Dir, w, err)
			}
			ctx.InAbsPath(scope).VariableWithValue(v, t).Trainable = false
			continue
		}
		l := a.Layers[w]
		if l == nil {
			continue // a lora_B bias target, stored with its layer
		}
		if l.Embedding {
			return errs.BadInputf("adapter %s: %s has embedding LoRA, which --adapter-mode separate does not support; use merged mode", a.Dir, l.Module)
		}
		sb := make([]float32, len(l.B))
		for i, b := range l.B {
			sb[i] = float32(l.Scale * float64(b))
		}
		if err := put(w, "A", l.A, l.Rank, l.In); err != nil {
			return err
		}
		if err := put(w, "B", sb, l.Out, l.Rank); err != nil {
			return err
		}
		if l.BiasDelta != nil {
			if err := put(w, "bias_delta", l.BiasDelta, l.Out); err != nil {
				return err
			}
		}
	}
	return nil
}

// deviceTensor copies f32 data into a tensor of dtype on device 0, once:
// straight into the backend's buffer, as loadTensor does for weights.
func deviceTensor(backend backends.Backend, data []float32, dtype dtypes.DType, dims []int) (*tensors.Tensor, error) {
	shape := shapes.Make(dtype, dims...)
	if shape.Size() != len(data) {
		return nil, fmt.Errorf("shape %v holds %d values, adapter has %d", dims, shape.Size(), len(data))
	}
	flat := flatIn(data, dtype)
	var buf backends.Buffer
	var err error
	if backend.HasSharedBuffers() {
		var dst any
		if buf, dst, err = backend.NewSharedBuffer(0, shape); err == nil {
			copyFlat(dst, flat, false)
		}
	} else {
		buf, err = backend.BufferFromFlatData(0, flat, shape)
	}
	if err != nil {
		return nil, err
	}
	return tensors.FromBuffer(backend, buf)
}

// SetActiveAdapter makes graph g apply separate-mode adapter index (-1:
// none, the base model). Call it before building the model on g.
func SetActiveAdapter(ctx *context.Context, g *Graph, index int) {
	ctx.InAbsPath("/").SetGraphParam(g, loraParam, index)
}

// ActiveAdapter is the adapter index set on g, or -1.
func ActiveAdapter(ctx *context.Context, g *Graph) int {
	return context.GetGraphParamOr(ctx.InAbsPath("/"), g, loraParam, -1)
}

// adapterVar returns the active adapter's variable for base tensor name
// (v overrides the variable name when not empty), or nil.
func adapterVar(ctx *context.Context, g *Graph, name, v string) *Node {
	i := ActiveAdapter(ctx, g)
	if i < 0 {
		return nil
	}
	scope, base := AdapterScope(i, name)
	if v == "" {
		v = base
	}
	if variable := ctx.GetVariableByScopeAndName(scope, v); variable != nil {
		return variable.ValueGraph(g)
	}
	return nil
}

// linear is x·Wᵀ (+ bias) for checkpoint weight name, plus, when g has an
// active separate-mode adapter that adapts name, (x·Aᵀ)·(scale·B)ᵀ (+ the
// lora_B bias). Architectures call it for every projection an adapter may
// target.
//
//	x [..., in], W [out, in], bias [out] or nil → [..., out]
func linear(ctx *context.Context, x *Node, name string, bias *Node) *Node {
	g := x.Graph()
	y := int8Linear(ctx, x, name, bias)             // LLM.int8 weights: int8_forward.go
	replaced := adapterVar(ctx, g, name, "") != nil // modules_to_save: Param has it
	wp, perm := paramPermuted(ctx, g, name)
	wt := paramT(ctx, g, name)
	switch {
	case y != nil:
	case !replaced && wp != nil: // input columns permuted (q4perm.go)
		y = nn.Linear(gatherLast(x, perm), wp, bias)
	case !replaced && isQ4Graph(ctx, name): // packed for the graph (q4graph.go)
		y = linearQ4(ctx, x, name, bias)
	case !replaced && wt != nil:
		y = nn.LinearT(x, wt, bias)
	default:
		y = nn.Linear(x, Param(ctx, g, name), bias)
	}
	a := adapterVar(ctx, g, name, "A")
	if a == nil {
		return y
	}
	b := adapterVar(ctx, g, name, "B")
	y = Add(y, nn.Linear(nn.Linear(x, a, nil), b, nil))
	if d := adapterVar(ctx, g, name, "bias_delta"); d != nil {
		dims := make([]int, y.Rank())
		for i := range dims {
			dims[i] = 1
		}
		dims[len(dims)-1] = d.Shape().Dim(0)
		y = Add(y, Reshape(ConvertDType(d, y.DType()), dims...))
	}
	return y
}

// project is linear on l's weight and, when l has one, its bias.
//
//	x [..., in] → [..., out]
func project(ctx *context.Context, x *Node, l linearW) *Node {
	var bias *Node
	if l.bias != "" {
		bias = Param(ctx, x.Graph(), l.bias)
	}
	return linear(ctx, x, l.weight, bias)
}

// projectHeads is project reshaped to heads of dim each.
//
//	h [B, T, H] → [B, T, heads, dim]
func projectHeads(ctx *context.Context, h *Node, l linearW, heads, dim int) *Node {
	return Reshape(project(ctx, h, l), h.Shape().Dim(0), h.Shape().Dim(1), heads, dim)
}
