package models

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// dropTensor removes tensor name.
func dropTensor(name string) func([]safetensors.Tensor) []safetensors.Tensor {
	return func(ts []safetensors.Tensor) []safetensors.Tensor {
		var out []safetensors.Tensor
		for _, x := range ts {
			if x.Name != name {
				out = append(out, x)
			}
		}
		return out
	}
}

// editTensor applies f to tensor name.
func editTensor(name string, f func(*safetensors.Tensor)) func([]safetensors.Tensor) []safetensors.Tensor {
	return func(ts []safetensors.Tensor) []safetensors.Tensor {
		for i := range ts {
			if ts[i].Name == name {
				f(&ts[i])
			}
		}
		return ts
	}
}

// TestIntQuantBadInput: GPTQ, AWQ and 8-bit checkpoints Load does not
// read fail when opened, before any weight is read, as one bad-input line.
func TestIntQuantBadInput(t *testing.T) {
	const down = "model.layers.0.mlp.down_proj"
	none := func(map[string]any) {}
	cases := map[string]struct {
		src     string
		edit    func(q map[string]any)
		rewrite func([]safetensors.Tensor) []safetensors.Tensor
		want    string
	}{
		"missing qzeros": {"llama-gptq4-g32", none, dropTensor(down + ".qzeros"), "missing tensor " + down + ".qzeros"},
		"missing scales": {"llama-awq-g32", none, dropTensor(down + ".scales"), "missing tensor " + down + ".scales"},
		"wrong bits":     {"llama-gptq4-g32", func(q map[string]any) { q["bits"] = 8 }, nil, "tensor " + down + ".g_idx is I32 [160], want [80] of I32"},
		"bits 3":         {"llama-gptq4-g32", func(q map[string]any) { q["bits"] = 3 }, nil, "GPTQ bits 3 is not supported (4 or 8)"},
		"marlin":         {"llama-gptq4-g32", func(q map[string]any) { q["checkpoint_format"] = "marlin" }, nil, `GPTQ checkpoint_format "marlin" is not supported`},
		"is_marlin":      {"llama-gptq4-g32", func(q map[string]any) { q["is_marlin_format"] = true }, nil, "GPTQ is_marlin_format checkpoints are not supported"},
		"exl2":           {"llama-gptq4-g32", func(q map[string]any) { q["quant_method"] = "exl2" }, nil, `quant_method "exl2" is not supported`},
		"awq gemv":       {"llama-awq-g32", func(q map[string]any) { q["version"] = "GEMV" }, nil, `AWQ version "gemv" is not supported (gemm)`},
		"awq group":      {"llama-awq-g32", func(q map[string]any) { q["group_size"] = 48 }, nil, "in_features 160 is not a multiple of AWQ group_size 48"},
		"scales shape": {"qwen2-gptq4-v2-g64", none, editTensor(down+".scales", func(x *safetensors.Tensor) {
			x.Shape, x.Data = []int{2, 64}, x.Data[:2*64*2]
		}), "tensor " + down + ".scales is F16 [2 64], want [3 64] of F16 BF16 F32"},
		"g_idx range": {"llama-gptq4-descact-asym", none, editTensor(down+".g_idx", func(x *safetensors.Tensor) {
			binary.LittleEndian.PutUint32(x.Data[4*7:], 5)
		}), down + ".g_idx[7] is 5, not one of its 5 groups"},
		"qweight dtype": {"llama-gptq4-g32", none, editTensor(down+".qweight", func(x *safetensors.Tensor) { x.DType = "F32" }), "qweight is F32, want I32"},
		"SCB shape": {"llama-bnb8", none, editTensor(down+".SCB", func(x *safetensors.Tensor) {
			x.Shape, x.Data = []int{32}, x.Data[:4*32]
		}), "tensor " + down + ".SCB is F32 [32], want [64] of F32"},
		"weight_format": {"llama-bnb8", none, editTensor(down+".weight_format", func(x *safetensors.Tensor) {
			x.Data = []byte{1}
		}), "weight_format 1 is not bitsandbytes' row format (0)"},
		"no SCB": {"llama-gptq4-g32", func(q map[string]any) {
			clear(q)
			q["quant_method"], q["load_in_8bit"] = "bitsandbytes", true
		}, nil, "bitsandbytes 8-bit quantization_config but no tensor ends in .SCB"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := quantCopy(t, filepath.Join(testdata, "quant", c.src), c.edit, c.rewrite)
			cfg, err := LoadConfig(dir)
			if err == nil {
				var set Tensors
				if set, err = OpenTensors(dir, cfg); err == nil {
					set.Close()
				}
			}
			if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v; want one bad-input line containing %q", err, c.want)
			}
		})
	}
}
