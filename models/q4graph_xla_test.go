//go:build cgo

package models

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/xla"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/pjrt"
)

// xlaCPU is an XLA CPU backend on the installed PJRT plugin where
// GOEVAL_TEST_DEVICE is xla-cpu (as make parity sets it); the test is
// skipped otherwise.
func xlaCPU(t *testing.T) backends.Backend {
	t.Helper()
	if os.Getenv("GOEVAL_TEST_DEVICE") != "xla-cpu" {
		t.Skip("XLA: GOEVAL_TEST_DEVICE=xla-cpu")
	}
	p, ok := pjrt.CPU()
	dir, err := pjrt.Dir()
	if !ok || err != nil {
		t.Fatalf("no pinned CPU plugin here (%v)", err)
	}
	path, ok := p.Installed(dir)
	if !ok {
		t.Fatalf("the PJRT CPU plugin is not installed in %s (goeval setup)", dir)
	}
	xla.EnableAutoInstall(false)
	b, err := xla.NewWithOptions(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadXLA loads golden dir on b in dtype, its 4-bit weights packed for
// the graph unless dequant, and returns the model and how many weights
// are packed.
func loadXLA(t *testing.T, b backends.Backend, dir string, dtype dtypes.DType, dequant bool, o LoadOptions) (*testModel, int) {
	t.Helper()
	o.DType, o.Dequantize4Bit = dtype, dequant
	l, err := Load(b, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	l.Context.EnumerateVariables(func(v *context.Variable) {
		if v.Name() == q4CodesVar {
			n++
		}
	})
	return &testModel{backend: b, ctx: l.Context, model: l.Model}, n
}

// q4GraphPacked is how many of a golden's 14 weights pack (as on the cpu
// backend: quant4Packed).
func q4GraphPacked(golden string) int {
	if n, ok := quant4Packed[filepath.Base(golden)]; ok {
		return n
	}
	return 14
}

// TestQ4GraphXLAWeights: on xla-cpu each golden's 4-bit weights load
// packed for the graph, and the weights the graph dequantizes (Param, in
// float32 and in bfloat16) are bit for bit those of the same checkpoint
// dequantized at load (LoadOptions.Dequantize4Bit).
func TestQ4GraphXLAWeights(t *testing.T) {
	b := xlaCPU(t)
	for _, golden := range q4GraphGoldens {
		for _, dt := range []dtypes.DType{dtypes.Float32, dtypes.BFloat16} {
			t.Run(golden+"/"+dt.String(), func(t *testing.T) {
				dir := filepath.Join(testdata, golden)
				packed, np := loadXLA(t, b, dir, dt, false, LoadOptions{})
				dense, nd := loadXLA(t, b, dir, dt, true, LoadOptions{})
				if want := q4GraphPacked(golden); np != want || nd != 0 {
					t.Fatalf("%d weights packed (want %d), %d with Dequantize4Bit (want 0)", np, want, nd)
				}
				_, set := openBnb(t, dir)
				names := set.(interface{ Quantized() []string }).Quantized()
				got, want := weightsOf(t, packed, names), weightsOf(t, dense, names)
				for i, name := range names {
					if d := firstBitDiff(got[i], want[i], dtypes.Float32); d >= 0 {
						t.Errorf("%s: value %d is %g in the graph, %g dequantized at load", name, d, got[i][d], want[i][d])
					}
				}
			})
		}
	}
}

// weightsOf returns m's weights names as the graphs see them (Param),
// widened to float32, flat.
func weightsOf(t *testing.T, m *testModel, names []string) [][]float32 {
	t.Helper()
	exec, err := context.NewExec(m.backend, m.ctx.Reuse(), func(ctx *context.Context, g *Graph) []*Node {
		out := make([]*Node, len(names))
		for i, n := range names {
			out[i] = ConvertDType(Param(ctx, g, n), dtypes.Float32)
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := exec.Exec()
	if err != nil {
		t.Fatal(err)
	}
	flat := make([][]float32, len(res))
	for i, r := range res {
		for _, row := range r.Value().([][]float32) {
			flat[i] = append(flat[i], row...)
		}
	}
	return flat
}

// q4GraphBound is the largest per-token log-prob difference on xla-cpu
// between weights dequantized in the graph and at load: the same weight
// values, multiplied by the same XLA products (bit for bit where the
// weight is not permuted); desc_act sums its products in group order.
const q4GraphBound = 1e-5

// TestQ4GraphXLAScores: on xla-cpu, in float32, each golden with its
// weights dequantized in the graph scores per token within q4GraphBound
// of the same checkpoint dequantized at load (and says how close), within
// 1e-4 of transformers with transformers' argmax (greedy token) at every
// scored position. (A greedy loop per request would compile a graph per
// length on XLA: minutes; the engine's greedy runs in cmd checks.)
func TestQ4GraphXLAScores(t *testing.T) {
	b := xlaCPU(t)
	for _, golden := range q4GraphGoldens {
		t.Run(golden, func(t *testing.T) {
			dir := filepath.Join(testdata, golden)
			reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(filepath.Dir(dir), "requests.jsonl"))
			packed, _ := loadXLA(t, b, dir, dtypes.Float32, false, LoadOptions{})
			dense, _ := loadXLA(t, b, dir, dtypes.Float32, true, LoadOptions{})
			got := packed.score(t, reqs, -1)
			dd := maxDiffRuns(got, dense.score(t, reqs, -1))
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden.jsonl"))
			dt := maxDiff(got, want)
			t.Logf("max per-token |Δ| = %.3g vs dequantized at load, %.3g vs transformers", dd, dt)
			if dd > q4GraphBound || dt > 1e-4 {
				t.Errorf("per token %g vs dequantized at load (bound %g), %g vs transformers (bound 1e-4)", dd, q4GraphBound, dt)
			}
			checkGreedyIDs(t, packed, reqs, want)
		})
	}
}

// TestQ4GraphXLALoRA: on xla-cpu a separate-mode adapter over a base
// packed for the graph (nf4, GPTQ) scores within 1e-4 of peft and within
// q4GraphBound per token of the base dequantized at load; merged, the
// base is dequantized at load (peft re-quantizes on merge) and also within
// 1e-4 of peft. The load line says which.
func TestQ4GraphXLALoRA(t *testing.T) {
	b := xlaCPU(t)
	for _, golden := range []string{"bnb/llama-nf4-dq", "quant/llama-gptq4-g32"} {
		t.Run(golden, func(t *testing.T) {
			dir := filepath.Join(testdata, golden)
			reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(filepath.Dir(dir), "requests.jsonl"))
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden_lora.jsonl"))
			var lines []string
			o := LoadOptions{Adapters: []string{filepath.Join(dir, "lora")}, AdapterMode: AdapterSeparate,
				Logf: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }}
			packed, np := loadXLA(t, b, dir, dtypes.Float32, false, o)
			dense, _ := loadXLA(t, b, dir, dtypes.Float32, true, o)
			got := packed.score(t, reqs, 0)
			ds, dd := maxDiff(got, want), maxDiffRuns(got, dense.score(t, reqs, 0))
			t.Logf("separate over packed: %.3g vs peft, max per-token |Δ| %.3g vs dequantized at load", ds, dd)
			if np != 14 || ds > 1e-4 || dd > q4GraphBound {
				t.Errorf("separate: %d packed (want 14), %g vs peft (bound 1e-4), %g per token vs dequantized (bound %g)", np, ds, dd, q4GraphBound)
			}
			if len(lines) == 0 || !strings.Contains(lines[0], "dequantized in the graph") {
				t.Errorf("load line %q does not say the weights are dequantized in the graph", lines)
			}
			o.AdapterMode = AdapterMerged
			merged, nm := loadXLA(t, b, dir, dtypes.Float32, false, o)
			if dm := maxDiff(merged.score(t, reqs, -1), want); nm != 0 || dm > 1e-4 || math.IsNaN(dm) {
				t.Errorf("merged: %d packed weights (want 0), %g vs peft (bound 1e-4)", nm, dm)
			}
		})
	}
}
