package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// bnbCopy copies the llama-nf4-dq golden into a temporary folder, with
// edit applied to config.json's quantization_config and rewrite (nil:
// none) to its tensors.
func bnbCopy(t *testing.T, edit func(q map[string]any), rewrite func([]safetensors.Tensor) []safetensors.Tensor) string {
	t.Helper()
	return quantCopy(t, filepath.Join(testdata, "bnb", "llama-nf4-dq"), edit, rewrite)
}

// quantCopy copies the quantized checkpoint src into a temporary folder,
// with edit applied to config.json's quantization_config and rewrite (nil:
// none) to its tensors.
func quantCopy(t *testing.T, src string, edit func(q map[string]any), rewrite func([]safetensors.Tensor) []safetensors.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	var cfg map[string]any
	data, err := os.ReadFile(filepath.Join(src, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	edit(cfg["quantization_config"].(map[string]any))
	if data, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := safetensors.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	var ts []safetensors.Tensor
	for _, n := range set.Names() {
		info, _ := set.Info(n)
		b, _ := set.Bytes(n)
		ts = append(ts, safetensors.Tensor{Name: n, DType: info.DType, Shape: info.Shape, Data: append([]byte(nil), b...)})
	}
	if rewrite != nil {
		ts = rewrite(ts)
	}
	if err := safetensors.Write(filepath.Join(dir, safetensors.SingleFile), ts, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBnbBadInput: quantizations and checkpoints Load does not read fail
// as one bad-input line (exit status 2) saying what is wrong.
func TestBnbBadInput(t *testing.T) {
	const absmax = "model.layers.0.mlp.down_proj.weight.absmax"
	cases := map[string]struct {
		edit    func(q map[string]any)
		rewrite func([]safetensors.Tensor) []safetensors.Tensor
		want    string
	}{
		"8-bit": {edit: func(q map[string]any) { q["load_in_4bit"], q["load_in_8bit"] = false, true }, want: "bitsandbytes 8-bit quantization_config but no tensor ends in .SCB"},
		"gptq": {edit: func(q map[string]any) { q["quant_method"], q["bits"], q["group_size"] = "gptq", 4, 64 },
			want: "GPTQ 4-bit gptq, group 64 quantization_config but no tensor ends in .qweight"},
		"exl2": {edit: func(q map[string]any) { q["quant_method"] = "exl2" }, want: `quant_method "exl2" is not supported`},
		"int4": {edit: func(q map[string]any) { q["bnb_4bit_quant_type"] = "int4" }, want: `bnb_4bit_quant_type "int4" is not supported`},
		"storage": {edit: func(q map[string]any) { q["bnb_4bit_quant_storage"] = "bfloat16" },
			want: `bnb_4bit_quant_storage "bfloat16" is not supported`},
		"type mismatch": {edit: func(q map[string]any) { q["bnb_4bit_quant_type"] = "fp4" }, want: "quant_type nf4, config.json's bnb_4bit_quant_type is fp4"},
		"missing absmax": {edit: func(map[string]any) {}, want: "missing tensor " + absmax,
			rewrite: func(ts []safetensors.Tensor) []safetensors.Tensor {
				var out []safetensors.Tensor
				for _, x := range ts {
					if x.Name != absmax {
						out = append(out, x)
					}
				}
				return out
			}},
		"short absmax": {edit: func(map[string]any) {}, want: "tensor " + absmax + " is U8 [319], want 320 values of U8",
			rewrite: func(ts []safetensors.Tensor) []safetensors.Tensor {
				for i, x := range ts {
					if x.Name == absmax {
						ts[i].Data, ts[i].Shape = x.Data[:319], []int{319}
					}
				}
				return ts
			}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := bnbCopy(t, c.edit, c.rewrite)
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

// TestBnbViewHidesCompanions: the view lists each 4-bit weight once with
// its dense shape and none of its companions, so the strict tensor check
// passes; the plain file set fails it.
func TestBnbViewHidesCompanions(t *testing.T) {
	dir := filepath.Join(testdata, "bnb", "llama-nf4-dq")
	cfg, set := openBnb(t, dir)
	if p := TensorProblems(cfg, set); len(p) != 0 {
		t.Errorf("view: %v", p)
	}
	info, ok := set.Info("model.layers.0.mlp.down_proj.weight")
	if !ok || info.DType != "NF4" || len(info.Shape) != 2 || info.Shape[0] != 64 || info.Shape[1] != 320 {
		t.Errorf("down_proj: %+v", info)
	}
	for _, n := range set.Names() {
		if strings.Contains(n, "absmax") || strings.Contains(n, "quant_") {
			t.Errorf("companion %s listed", n)
		}
	}
	raw, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if len(TensorProblems(cfg, raw)) == 0 {
		t.Error("the plain file set passes the tensor check; the view test proves nothing")
	}
}
