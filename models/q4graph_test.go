package models

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/safetensors"
)

// q4GraphGoldens are the 4-bit goldens (testdata folder/name) whose
// weights the graph dequantizes: nf4 and fp4 with and without double
// quantization, GPTQ symmetric and asymmetric (desc_act), v2, AWQ.
var q4GraphGoldens = []string{
	"bnb/llama-nf4-dq", "bnb/llama-fp4", "bnb/qwen2-nf4", "bnb/qwen2-fp4-dq-bf16",
	"quant/llama-gptq4-g32", "quant/llama-gptq4-descact-asym", "quant/qwen2-gptq4-v2-g64",
	"quant/llama-awq-g32", "quant/qwen2-awq-g16",
}

// TestQ4GraphDequantMatchesLoad: every 4-bit weight of the goldens that
// packs (Q4Weight), stored as the graph holds it on XLA (storeQ4Graph)
// and dequantized by the graph (unpackedQ4, on GoMLX's simplego here; the
// xla-cpu test runs the whole load there), is bit for bit the dequantizing
// load's float32 values (bfloat16, which simplego does not round to
// nearest, is checked on xla-cpu). It fails on a broken unpack (nibbles
// swapped, a scale misplaced).
func TestQ4GraphDequantMatchesLoad(t *testing.T) {
	backend, err := simplego.New("ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	for _, golden := range q4GraphGoldens {
		t.Run(golden, func(t *testing.T) {
			_, set := openBnb(t, filepath.Join(testdata, golden))
			n := 0
			for _, name := range set.(interface{ Quantized() []string }).Quantized() {
				w, ok, err := set.(q4Source).q4Weight(name)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				want, err := set.Float32(name)
				if err != nil {
					t.Fatal(err)
				}
				n++
				got := graphDequant(t, backend, w, dtypes.Float32)
				if i := firstBitDiff(got, want, dtypes.Float32); i >= 0 {
					t.Errorf("%s: value %d is %g in the graph, %g dequantized at load", name, i, got[i], want[i])
				}
			}
			if n == 0 {
				t.Fatal("no 4-bit weight packs")
			}
		})
	}
}

// graphDequant stores w as XLA holds it and returns the graph's
// dequantized [out, in] weight, held in held (its values widened to
// float32).
func graphDequant(t *testing.T, backend backends.Backend, w *Q4Weight, held dtypes.DType) []float32 {
	t.Helper()
	ctx := context.New()
	root := ctx.InAbsPath("/")
	root.SetParam(q4HeldParam, held.String())
	root.SetParam(q4ComputeParam, held.String())
	const name = "model.layers.0.mlp.up_proj.weight"
	scope, _ := VariablePath(name)
	if err := storeQ4Graph(ctx.InAbsPath(scope), backend, w); err != nil {
		t.Fatal(err)
	}
	exec, err := context.NewExec(backend, ctx.Reuse(), func(ctx *context.Context, g *Graph) *Node {
		return ConvertDType(Param(ctx, g, name), dtypes.Float32)
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := exec.Exec1()
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Value().([][]float32)
	out := make([]float32, 0, w.Shape[0]*w.Shape[1])
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// firstBitDiff is the first index where got's bits differ from want's
// rounded to held (float32 or bfloat16), or -1.
func firstBitDiff(got, want []float32, held dtypes.DType) int {
	if len(got) != len(want) {
		return 0
	}
	for i, v := range want {
		if held == dtypes.BFloat16 {
			v = math.Float32frombits(uint32(safetensors.Float32ToBF16(v)) << 16)
		}
		if math.Float32bits(got[i]) != math.Float32bits(v) {
			return i
		}
	}
	return -1
}
