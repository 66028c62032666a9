package models

import (
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Packed 4-bit weights with permuted input columns (GPTQ desc_act:
// Q4Weight.Perm, intquant_q4.go). Such a weight W [out, in] is held as
// W' [out, in] with W'[o, j] = W[o, perm[j]], in its scope as variable
// permutedVar next to perm (permVar) and its inverse (unpermVar), int32
// [in]. linear multiplies x[..., perm] by W' (the same products, summed in
// another order); Param, for any other use, returns W' with its columns
// put back, W = W'[:, unperm] (a use that reads the packed buffer as a
// matrix: goeval's backend dequantizes it then).

// Variable names of a permuted packed weight.
const (
	permutedVar = "weight_perm"
	permVar     = "weight_perm_in"
	unpermVar   = "weight_perm_out"
)

// storePermuted stores the packed weight t of checkpoint tensor name,
// whose column j is input perm[j], with its permutations.
func storePermuted(ctx *context.Context, name string, t *tensors.Tensor, perm []int32) {
	scope, _ := VariablePath(name)
	unperm := make([]int32, len(perm))
	for j, i := range perm {
		unperm[i] = int32(j)
	}
	c := ctx.InAbsPath(scope)
	c.VariableWithValue(permutedVar, t).Trainable = false
	c.VariableWithValue(permVar, tensors.FromValue(perm)).Trainable = false
	c.VariableWithValue(unpermVar, tensors.FromValue(unperm)).Trainable = false
}

// paramPermuted returns linear weight name's permuted packed weight W'
// [out, in] and perm [in] where it was stored so, else nils.
func paramPermuted(ctx *context.Context, g *graph.Graph, name string) (w, perm *graph.Node) {
	scope, _ := VariablePath(name)
	wv, pv := ctx.GetVariableByScopeAndName(scope, permutedVar), ctx.GetVariableByScopeAndName(scope, permVar)
	if wv == nil || pv == nil {
		return nil, nil
	}
	return computeValue(ctx, wv.ValueGraph(g)), pv.ValueGraph(g)
}

// unpermuted returns linear weight name as [out, in] where it was stored
// permuted (W'[:, unperm]), else nil.
func unpermuted(ctx *context.Context, g *graph.Graph, name string) *graph.Node {
	scope, _ := VariablePath(name)
	wv, uv := ctx.GetVariableByScopeAndName(scope, permutedVar), ctx.GetVariableByScopeAndName(scope, unpermVar)
	if wv == nil || uv == nil {
		return nil
	}
	return gatherLast(computeValue(ctx, wv.ValueGraph(g)), uv.ValueGraph(g))
}

// gatherLast gathers x's last axis at idx: out[..., j] = x[..., idx[j]],
// as rows of x's transpose.
//
//	x [..., k], idx [k] int32 → [..., k]
func gatherLast(x, idx *graph.Node) *graph.Node {
	dims := x.Shape().Dimensions
	k := dims[len(dims)-1]
	flat := graph.Reshape(x, -1, k)                                             // [n, k]
	cols := graph.Gather(graph.Transpose(flat, 0, 1), graph.Reshape(idx, k, 1)) // [k, n]
	return graph.Reshape(graph.Transpose(cols, 0, 1), dims...)
}
