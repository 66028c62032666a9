package models_test

import (
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/models"
)

// TestLoadBnbWeightDType: a bitsandbytes 4-bit checkpoint loaded with
// weight-only bf16 on goeval's pure-Go backend and dequantized at load
// (LoadOptions.Dequantize4Bit; dequantized straight into the backend's
// bf16 buffers; through float32 with a merged adapter) holds the float32
// load's dequantized weights rounded to nearest even.
func TestLoadBnbWeightDType(t *testing.T) {
	dir := filepath.Join("testdata", "bnb", "llama-nf4-dq")
	for _, adapters := range [][]string{nil, {filepath.Join(dir, "lora")}} {
		b, err := gocpu.New("")
		if err != nil {
			t.Fatal(err)
		}
		l32, err := models.Load(b, dir, models.LoadOptions{DType: dtypes.Float32, Adapters: adapters, Dequantize4Bit: true})
		if err != nil {
			t.Fatal(err)
		}
		l16, err := models.Load(b, dir, models.LoadOptions{DType: dtypes.Float32, WeightDType: dtypes.BFloat16, Adapters: adapters, Dequantize4Bit: true})
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
		if n != 16 { // 14 quantized projections, the embedding and the LM head
			t.Errorf("%d weight matrices, want 16", n)
		}
	}
}
