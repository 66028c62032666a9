package engine

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/synth"
)

// TestWeightOnlyBF16: --dtype bfloat16 on the pure-Go backend keeps the
// weight matrices bf16 in memory and computes in f32 (precisionOn), so
// on a bf16 checkpoint, whose f32 load widens every weight exactly, it
// scores and generates bit for bit as float32 does (gemm's bf16 kernels
// are its f32 chains on the widened weights). The matrices (a tied
// embedding too) are bf16 and packed in place after the work, the norms
// f32, and the weights take about half the bytes.
func TestWeightOnlyBF16(t *testing.T) {
	ctx := context.Background()
	for i, arch := range []string{"llama", "qwen2"} {
		o := synth.ModelOptions{Arch: arch, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 128, Vocab: 256,
			Seed: uint64(i + 3), BOS: 1, EOS: 2, DType: "bf16", Tie: arch == "qwen2", Out: filepath.Join(t.TempDir(), arch)}
		if err := synth.Model(o); err != nil {
			t.Fatal(err)
		}
		work := mcWorkload(4, 5, 40, 5, o.Vocab)
		gen := []lm.GenerateRequest{{ContextIDs: []int32{5, 6, 7}, MaxTokens: 6}, {ContextIDs: []int32{8, 9}, MaxTokens: 6}}
		var scores [2][]lm.LoglikelihoodResult
		var texts [2][]lm.GenerateResult
		var bytes [2]int64
		for j, dt := range []string{"float32", "bfloat16"} {
			// float32 log-softmax: the products are compared, not lm-eval's
			// bf16 rounding of log-probs (lpround.go).
			e, err := Open(o.Out, Options{Device: "cpu", DType: dt, BatchSize: 4, SoftmaxDType: "float32"})
			if err != nil {
				t.Fatal(err)
			}
			if e.spec != gocpu.Name || e.prec.compute != dtypes.Float32 {
				t.Fatalf("%s %s: backend %q, compute dtype %s; want gocpu, Float32", arch, dt, e.spec, e.prec.compute)
			}
			if scores[j], err = e.Loglikelihood(ctx, work); err != nil {
				t.Fatal(err)
			}
			if texts[j], err = e.GenerateUntil(ctx, gen); err != nil {
				t.Fatal(err)
			}
			bytes[j] = weightBytes(e.ctx)
			if dt == "bfloat16" {
				checkBF16Weights(t, e, o.Tie)
			}
			e.Close()
		}
		if !reflect.DeepEqual(scores[0], scores[1]) {
			t.Errorf("%s: weight-only bf16 scores differ from float32 on a bf16 checkpoint", arch)
		}
		if !reflect.DeepEqual(texts[0], texts[1]) {
			t.Errorf("%s: weight-only bf16 generates %v, float32 %v", arch, texts[1], texts[0])
		}
		if r := float64(bytes[1]) / float64(bytes[0]); r > 0.52 {
			t.Errorf("%s: bf16 weights take %d bytes, %.2f× float32's %d", arch, bytes[1], r, bytes[0])
		}
	}
}

// checkBF16Weights: every matrix is bf16 and, after the engine's work,
// packed in place (a tied embedding too: its gathers read it packed);
// every other tensor is f32.
func checkBF16Weights(t *testing.T, e *Engine, tied bool) {
	t.Helper()
	e.ctx.EnumerateVariables(func(v *mlctx.Variable) {
		name := v.ScopeAndName()
		matrix := v.Shape().Rank() == 2 && strings.HasSuffix(name, "/weight")
		if want := map[bool]dtypes.DType{true: dtypes.BFloat16, false: dtypes.Float32}[matrix]; v.Shape().DType != want {
			t.Errorf("%s is %s, want %s", name, v.Shape().DType, want)
		}
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		buf, err := val.Buffer(e.backend, 0)
		if err != nil {
			t.Fatal(err)
		}
		packed := gocpu.PackedWeights(buf) == 1
		if want := matrix && (tied || !strings.Contains(name, "embed")); packed != want {
			t.Errorf("%s: packed in place %v, want %v", name, packed, want)
		}
	})
}
