package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/x448/float16"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
	"github.com/goeval/goeval/synth"
)

func TestParseDType(t *testing.T) {
	for in, want := range map[string]string{"": "float32", "auto": "auto", "AUTO": "auto", "float32": "float32", "f32": "float32",
		"fp32": "float32", "float": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16", "BF16": "bfloat16",
		"float16": "float16", "f16": "float16", "fp16": "float16", "half": "float16"} {
		if got, err := ParseDType(in); got != want || err != nil {
			t.Errorf("ParseDType(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"int8", "float64", "fp8", "torch.float16", "bfloat"} {
		_, err := ParseDType(bad)
		if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "use auto, float32, bfloat16 or float16") {
			t.Errorf("ParseDType(%q): %v, want bad input naming the values", bad, err)
		}
	}
}

// auto is the checkpoint's dtype on cuda and float32 on the CPU devices;
// other values resolve to their canonical name everywhere.
func TestResolveDType(t *testing.T) {
	for _, c := range []struct{ dtype, device, torch, want string }{
		{"auto", "cuda", "bfloat16", "bfloat16"},
		{"auto", "cuda", "float16", "float16"},
		{"auto", "cuda", "torch.float16", "float16"},
		{"auto", "cuda", "float32", "float32"},
		{"auto", "cuda", "", "float32"},
		{"auto", "cuda", "float64", "float32"},
		{"auto", "cpu", "bfloat16", "float32"},
		{"auto", "xla-cpu", "float16", "float32"},
		{"AUTO", "cpu", "float16", "float32"},
		{"", "cuda", "bfloat16", "float32"},
		{"bf16", "cpu", "float32", "bfloat16"},
		{"half", "cpu", "bfloat16", "float16"},
		{"fp32", "cuda", "bfloat16", "float32"},
	} {
		if got, err := ResolveDType(c.dtype, c.device, c.torch); got != c.want || err != nil {
			t.Errorf("ResolveDType(%q, %q, %q) = %q, %v; want %q", c.dtype, c.device, c.torch, got, err, c.want)
		}
	}
	if _, err := ResolveDType("int8", "cuda", "bfloat16"); !errs.IsBadInput(err) {
		t.Errorf("ResolveDType(int8): %v, want bad input", err)
	}
}

// Each backend computes in the dtypes it has; elsewhere in float32 on
// weights rounded to the dtype.
func TestComputesIn(t *testing.T) {
	for _, c := range []struct {
		backend string
		dtype   dtypes.DType
		want    bool
	}{
		{gocpu.Name, dtypes.Float32, true}, {gocpu.Name, dtypes.BFloat16, false}, {gocpu.Name, dtypes.Float16, false},
		{"go", dtypes.Float32, true}, {"go", dtypes.BFloat16, true}, {"go", dtypes.Float16, false},
		{"xla", dtypes.Float16, true}, {"xla", dtypes.BFloat16, true},
	} {
		if got := computesIn(c.backend, c.dtype); got != c.want {
			t.Errorf("computesIn(%s, %s) = %v", c.backend, c.dtype, got)
		}
	}
}

// float16 on the pure-Go device runs on gocpu in float32 on weights rounded
// to nearest float16; bfloat16 there (weight-only: float32 compute) holds
// bfloat16 weight matrices rounded to nearest (ties to even), as torch
// converts a checkpoint, not truncated.
func TestHalfWeights(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 16, Layers: 1, Heads: 2, KVHeads: 1,
		Intermediate: 32, Vocab: 64, MaxPositions: 128, BOS: 1, EOS: 2, Seed: 1, Out: dir}); err != nil {
		t.Fatal(err)
	}
	set, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	const name = "model.layers.0.mlp.up_proj.weight"
	want, err := set.Float32(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dtype, spec string
		compute     dtypes.DType
		round       func(float32) float32
	}{
		{dtype: "float16", spec: gocpu.Name, compute: dtypes.Float32, round: func(f float32) float32 { return float16.Fromfloat32(f).Float32() }},
		{dtype: "bfloat16", spec: gocpu.Name, compute: dtypes.Float32, round: func(f float32) float32 {
			return safetensors.BF16ToFloat32(safetensors.Float32ToBF16(f))
		}},
	} {
		e, err := Open(dir, Options{Device: "cpu", DType: c.dtype})
		if err != nil {
			t.Fatal(err)
		}
		if e.DType() != c.dtype || e.prec.compute != c.compute || e.spec != c.spec {
			t.Errorf("%s: engine dtype %s computing in %s on %s; want %s on %s", c.dtype, e.DType(), e.prec.compute, e.spec, c.compute, c.spec)
		}
		scope, v := models.VariablePath(name)
		got := flatFloat32(t, e.ctx.GetVariableByScopeAndName(scope, v).MustValue())
		changed := 0
		for i, w := range want {
			if got[i] != c.round(w) {
				t.Fatalf("%s: %s[%d] = %g, want %g rounded to nearest: %g", c.dtype, name, i, got[i], w, c.round(w))
			}
			if got[i] != w {
				changed++
			}
		}
		if changed == 0 {
			t.Errorf("%s: no weight changed: not rounded", c.dtype)
		}
		e.Close()
	}
}

// flatFloat32 copies a float32, bfloat16 or float16 tensor out as float32.
func flatFloat32(t *testing.T, x *tensors.Tensor) []float32 {
	t.Helper()
	switch x.DType() {
	case dtypes.Float32:
		return tensors.MustCopyFlatData[float32](x)
	case dtypes.BFloat16:
		var out []float32
		for _, b := range tensors.MustCopyFlatData[bfloat16.BFloat16](x) {
			out = append(out, b.Float32())
		}
		return out
	}
	t.Fatalf("tensor of %s", x.DType())
	return nil
}
