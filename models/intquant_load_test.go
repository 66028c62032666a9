package models_test

import (
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/models"
)

// TestLoadIntQuantWeightDType: GPTQ, AWQ and 8-bit checkpoints loaded with
// weight-only bf16 on goeval's pure-Go backend and dequantized at load
// (LoadOptions.Dequantize4Bit and Dequantize8Bit; dequantized straight
// into bf16 buffers; LLM.int8's codes are bf16 either way:
// TestInt8ForwardMatchesTransformers) hold the float32 load's weights rounded to nearest
// even.
func TestLoadIntQuantWeightDType(t *testing.T) {
	for _, name := range []string{"llama-gptq4-descact-asym", "qwen2-awq-g16", "llama-bnb8"} {
		dir := filepath.Join("testdata", "quant", name)
		b, err := gocpu.New("")
		if err != nil {
			t.Fatal(err)
		}
		l32, err := models.Load(b, dir, models.LoadOptions{DType: dtypes.Float32, Dequantize4Bit: true, Dequantize8Bit: true})
		if err != nil {
			t.Fatal(err)
		}
		l16, err := models.Load(b, dir, models.LoadOptions{DType: dtypes.Float32, WeightDType: dtypes.BFloat16, Dequantize4Bit: true, Dequantize8Bit: true})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for v := range l32.Context.IterVariables() {
			if v.Shape().Rank() == 2 && v.Name() == "weight" {
				checkRounded(t, l16.Context, v.ScopeAndName(), v)
				n++
			}
		}
		if n != 16 {
			t.Errorf("%s: %d weight matrices, want 16", name, n)
		}
	}
}
