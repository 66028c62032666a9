package models

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// WriteLoadIn4Bit rewrites the float checkpoint in dir (one
// model.safetensors, config.json without quantization_config) as
// transformers' save_pretrained writes it after loading it with
// load_in_4bit as q (LoadIn4Bit) says: every weight bnbLoadTargets names
// replaced by the tensors bitsandbytes saves for it (bnbQuantizedTensors),
// the other tensors unchanged. config.json is the caller's
// (BNBConfigJSON gives its quantization_config).
func WriteLoadIn4Bit(dir string, q *Quantization) error {
	path := filepath.Join(dir, safetensors.SingleFile)
	set, err := safetensors.OpenFile(path)
	if err != nil {
		return err
	}
	defer set.Close()
	b, err := quantizeSet(set, q)
	if err != nil {
		return err
	}
	var out []safetensors.Tensor
	for _, name := range set.Names() {
		if _, ok := b.weights[name]; ok {
			continue
		}
		info, _ := set.Info(name)
		data, err := set.Bytes(name)
		if err != nil {
			return err
		}
		out = append(out, safetensors.Tensor{Name: name, DType: info.DType, Shape: info.Shape, Data: data})
	}
	for _, t := range b.mem {
		out = append(out, t)
	}
	if err := safetensors.Write(path, out, map[string]string{"format": "pt"}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// BNBConfigJSON is the quantization_config transformers 5.23 writes into
// config.json for BitsAndBytesConfig(load_in_4bit=True, …) as q says.
func BNBConfigJSON(q *Quantization) (map[string]any, error) {
	if q == nil || q.Method != "bitsandbytes" || !q.LoadIn4Bit {
		return nil, errs.BadInputf("not a load_in_4bit quantization: %s", q)
	}
	return map[string]any{
		"_load_in_4bit": true, "_load_in_8bit": false, "bnb_4bit_compute_dtype": q.ComputeDType,
		"bnb_4bit_quant_storage": "uint8", "bnb_4bit_quant_type": q.QuantType,
		"bnb_4bit_use_double_quant": q.DoubleQuant, "llm_int8_enable_fp32_cpu_offload": false,
		"llm_int8_has_fp16_weight": false, "llm_int8_skip_modules": nil, "llm_int8_threshold": json.RawMessage("6.0"), // a float, as Python writes it
		"load_in_4bit": true, "load_in_8bit": false, "quant_method": "bitsandbytes",
	}, nil
}
