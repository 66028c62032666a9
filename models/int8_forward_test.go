package models

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/nn"
	"github.com/goeval/goeval/models/safetensors"
)

// int8Goldens are parity/bnb/int8_golden.py's 8-bit checkpoints: Llama
// with llm_int8_threshold 0 (no outlier split) and Qwen2 with the default
// 6.0, where some activation columns of six of its seven projections reach
// it (outliers.json).
var int8Goldens = []string{"llama-t0", "qwen2-t6"}

// loadInt8Model loads an 8-bit checkpoint through Load on the pure-Go
// backend with o (DType float32 unless set).
func loadInt8Model(t *testing.T, dir string, o LoadOptions) *testModel {
	t.Helper()
	backend, err := gocpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	if o.DType == dtypes.InvalidDType {
		o.DType = dtypes.Float32
	}
	l, err := Load(backend, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return &testModel{backend: backend, ctx: l.Context, model: l.Model}
}

// TestInt8ForwardMatchesTransformers scores each 8-bit golden as Load
// computes it by default (LLM.int8) against transformers + bitsandbytes on
// the CPU: max |Δ logprob_sum| ≤ 1e-4, the same argmax at every scored
// position and the same greedy continuations. The dequantized model
// (Dequantize8Bit) is further off than that: the golden tells them apart.
func TestInt8ForwardMatchesTransformers(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "bnb_int8", "requests.jsonl"))
	for _, name := range int8Goldens {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "bnb_int8", name)
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden.jsonl"))
			m := loadInt8Model(t, dir, LoadOptions{})
			checkInt8CodesBF16(t, m.ctx)
			gocpu.SetOpStats(true)
			d := maxDiff(m.score(t, reqs, -1), want)
			checkInt8Fused(t)
			deq := maxDiff(loadInt8Model(t, dir, LoadOptions{Dequantize8Bit: true}).score(t, reqs, -1), want)
			t.Logf("max |Δ logprob_sum|: LLM.int8 %.3g; dequantized model %.3g", d, deq)
			if d > 1e-4 {
				t.Errorf("max |Δ| = %g > 1e-4", d)
			}
			if deq <= 1e-4 {
				t.Errorf("the dequantized model is within 1e-4 too (%g): the golden does not tell LLM.int8 apart", deq)
			}
			checkGreedyIDs(t, m, reqs, want)
			for _, g := range testutil.ReadJSONL[quantGen](t, filepath.Join(dir, "generate.jsonl")) {
				if out := m.greedy(t, g.ContextIDs, len(g.Greedy)); !equalIDs(out, g.Greedy) {
					t.Errorf("greedy after %v: %v, transformers %v", g.ContextIDs, out, g.Greedy)
				}
			}
		})
	}
}

// checkInt8Fused checks, where the CPU has AVX512_VNNI, that the products
// just run took their integer form on int8 kernels (gocpu's DotInt8), and
// turns the op statistics off.
func checkInt8Fused(t *testing.T) {
	t.Helper()
	defer gocpu.SetOpStats(false)
	if !gocpu.HasInt8Dot() {
		t.Log("no AVX512_VNNI: the products ran in their float32 form")
		return
	}
	for _, st := range gocpu.OpStats() {
		if strings.HasPrefix(st.Key, "DotInt8") {
			return
		}
	}
	t.Error("no DotInt8 node ran: the LLM.int8 products did not take their integer form")
}

// checkInt8CodesBF16 checks that every LLM.int8 weight (a "weight" beside
// its SCB) is held as bfloat16 codes on the pure-Go backend
// (int8CodesBF16), not float32.
func checkInt8CodesBF16(t *testing.T, ctx *context.Context) {
	t.Helper()
	n := 0
	ctx.EnumerateVariables(func(v *context.Variable) {
		if v.Name() != int8ScaleVar {
			return
		}
		n++
		if w := ctx.InAbsPath(v.Scope()).GetVariable("weight"); w == nil || w.Shape().DType != dtypes.BFloat16 {
			t.Errorf("LLM.int8 weight in %s not held as bfloat16 codes (%v)", v.Scope(), w)
		}
	})
	if n == 0 {
		t.Error("no LLM.int8 weights (SCB variables) in the loaded model")
	}
}

// TestInt8LinearMatchesBitsandbytes runs nn.Int8Linear on the inputs each
// Linear8bitLt had in transformers' forward of one request
// (modules.safetensors: q/k/v, o, gate/up and down projections, with and
// without outlier columns) and compares with its outputs: the same
// within float32 rounding (the outlier product is summed in another
// order), 1e-6 of the outputs' scale. A code off by one (the fp16
// rounding left out, 127/absmax divided once rather than as torch's
// reciprocal·127) is 1e-3 off; the outlier split left out, more.
func TestInt8LinearMatchesBitsandbytes(t *testing.T) {
	backend, err := gocpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range int8Goldens {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "bnb_int8", name)
			cfg, set := openBnb(t, dir)
			io, err := safetensors.OpenFile(filepath.Join(dir, "modules.safetensors"))
			if err != nil {
				t.Fatal(err)
			}
			defer io.Close()
			n := 0
			for _, k := range io.Names() {
				module, ok := strings.CutSuffix(k, ".x")
				if !ok {
					continue
				}
				d, scale := int8ModuleDiff(t, backend, set.(*intQuantSet), io, module, cfg.Quantization.Int8Threshold())
				if d > 1e-6*scale {
					t.Errorf("%s: max |Δ| %g, outputs up to %g", module, d, scale)
				}
				n++
			}
			if n != 7*cfg.NumHiddenLayers {
				t.Errorf("%d modules checked, want %d", n, 7*cfg.NumHiddenLayers)
			}
		})
	}
}

// int8ModuleDiff is the largest |Δ| between nn.Int8Linear of module's
// recorded input and its recorded output, and the outputs' largest |y|.
func int8ModuleDiff(t *testing.T, backend backends.Backend, set *intQuantSet, io *safetensors.Set, module string, threshold float64) (d, scale float64) {
	t.Helper()
	xInfo, _ := io.Info(module + ".x")
	x, err := io.Float32(module + ".x")
	if err != nil {
		t.Fatal(err)
	}
	y, err := io.Float32(module + ".y")
	if err != nil {
		t.Fatal(err)
	}
	w, err := set.RowInt8(module + ".weight")
	if err != nil {
		t.Fatal(err)
	}
	cb := make([]float32, len(w.Codes))
	for i, c := range w.Codes {
		cb[i] = float32(c)
	}
	bias := make([]float32, w.Out)
	if _, ok := set.Info(module + ".bias"); ok {
		if bias, err = set.Float32(module + ".bias"); err != nil {
			t.Fatal(err)
		}
	}
	rows := xInfo.Shape[0]
	got := MustExecOnce(backend, func(x, cb, scb, bias *Node) *Node {
		x = Reshape(x, 1, rows, w.In)
		return Reshape(nn.Int8Linear(x, Reshape(cb, w.Out, w.In), scb, bias, threshold, nil), -1)
	}, x, cb, w.SCB, bias).Value().([]float32)
	for i, v := range y {
		d = math.Max(d, math.Abs(float64(got[i]-v)))
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	return d, scale
}

// TestInt8InputShared checks that the LLM.int8 products of one input in a
// graph share its quantization (int8Input), and that another input gets
// its own.
func TestInt8InputShared(t *testing.T) {
	backend, err := gocpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	ctx := context.New()
	g := NewGraph(backend, "int8-input")
	x := Parameter(g, "x", shapes.Make(dtypes.Float32, 2, 3, 8))
	y := Parameter(g, "y", shapes.Make(dtypes.Float32, 2, 3, 8))
	if a, b := int8Input(ctx, x), int8Input(ctx, x); a != b {
		t.Error("two products of the same input quantized it twice")
	}
	if int8Input(ctx, x) == int8Input(ctx, y) {
		t.Error("two inputs share one quantization")
	}
}
