package models_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
	"github.com/goeval/goeval/synth"
)

// TestLoadWeightDType: with WeightDType bfloat16 and DType float32 every
// rank-2 weight is stored bf16, rounded to nearest even from the f32
// checkpoint (and from the merged adapter's f32 result), every other
// tensor f32; Param gives the f32 widening; other pairs are refused.
func TestLoadWeightDType(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Intermediate: 64,
		Vocab: 64, Seed: 5, BOS: 1, EOS: 2, Out: dir}); err != nil {
		t.Fatal(err)
	}
	adapter := models.LoadOptions{Adapters: []string{fixturemodel.AdapterDir(t)}}
	for _, c := range []struct {
		dir string
		o   models.LoadOptions
	}{{dir, models.LoadOptions{}}, {fixturemodel.Model(t, fixturemodel.Base), adapter}} {
		b, err := gocpu.New("")
		if err != nil {
			t.Fatal(err)
		}
		ref, wide := c.o, c.o
		ref.DType = dtypes.Float32
		wide.DType, wide.WeightDType = dtypes.Float32, dtypes.BFloat16
		l32, err := models.Load(b, c.dir, ref)
		if err != nil {
			t.Fatal(err)
		}
		l16, err := models.Load(b, c.dir, wide)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for v := range l16.Context.IterVariables() {
			matrix := v.Shape().Rank() == 2 && strings.HasSuffix(v.Name(), "weight")
			want := map[bool]dtypes.DType{true: dtypes.BFloat16, false: dtypes.Float32}[matrix]
			if v.Shape().DType != want {
				t.Errorf("%s: %s, want %s", v.ScopeAndName(), v.Shape().DType, want)
			}
			if !matrix {
				continue
			}
			n++
			f32 := l32.Context.GetVariableByScopeAndName(v.Scope(), v.Name())
			checkRounded(t, l16.Context, v.ScopeAndName(), f32)
		}
		if n == 0 {
			t.Fatal("no matrix among the variables")
		}
	}
	b, _ := gocpu.New("")
	if _, err := models.Load(b, dir, models.LoadOptions{DType: dtypes.BFloat16, WeightDType: dtypes.Float32}); err == nil {
		t.Error("bf16 compute with f32 weights: loaded, want an error")
	}
}

// checkRounded: the bf16 variable of ctx16 in f32's place holds f32's
// values rounded to nearest even, and Param reads it widened to f32.
func checkRounded(t *testing.T, ctx16 *context.Context, name string, f32 *context.Variable) {
	t.Helper()
	v16 := ctx16.GetVariableByScopeAndName(f32.Scope(), f32.Name())
	want := tensors.MustCopyFlatData[float32](f32.MustValue())
	got := tensors.MustCopyFlatData[bfloat16.BFloat16](v16.MustValue())
	for i, f := range want {
		if uint16(got[i]) != safetensors.Float32ToBF16(f) {
			t.Fatalf("%s[%d] = %#04x, want %#04x (%g rounded)", name, i, got[i], safetensors.Float32ToBF16(f), f)
		}
	}
	ckpt := strings.ReplaceAll(strings.TrimPrefix(f32.Scope(), "/"), "/", ".") + "." + f32.Name()
	backend, err := v16.MustValue().Backend()
	if err != nil {
		t.Fatal(err)
	}
	out, err := context.ExecOnce(backend, ctx16, func(ctx *context.Context, g *Graph) *Node {
		return models.Param(ctx, g, ckpt)
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.DType() != dtypes.Float32 {
		t.Fatalf("Param(%s) is %s, want Float32", ckpt, out.DType())
	}
	for i, f := range tensors.MustCopyFlatData[float32](out) {
		if f != got[i].Float32() {
			t.Fatalf("Param(%s)[%d] = %g, want %g", ckpt, i, f, got[i].Float32())
		}
	}
}
