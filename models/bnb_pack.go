package models

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/models/safetensors"
)

// bnbLoadBlocksize is the block size transformers' Linear4bit quantizes
// in (bitsandbytes' Params4bit default).
const bnbLoadBlocksize = 64

// bnbQuantizedTensors quantizes weight name (float32 values x of the given
// shape, stored as dtype "F32", "BF16" or "F16") as bitsandbytes' Params4bit
// does when transformers loads a float checkpoint with load_in_4bit (q's
// quant type and double quantization, block size 64) and returns the
// tensors save_pretrained writes for it (bnb.go): the packed codes, absmax
// (with double quantization its 8-bit codes, nested_absmax and
// nested_quant_map), quant_map and the JSON quant state.
func bnbQuantizedTensors(name string, x []float32, shape []int, dtype string, q *Quantization) ([]safetensors.Tensor, error) {
	qz, err := newBNBQuantizer(q.QuantType)
	if err != nil {
		return nil, err
	}
	packed, absmax := qz.quantize(x, bnbLoadBlocksize)
	code := &nf4Code
	if q.QuantType == "fp4" {
		code = &fp4Code
	}
	out := []safetensors.Tensor{
		{Name: name, DType: "U8", Shape: []int{len(packed), 1}, Data: packed},
		{Name: name + ".quant_map", DType: "F32", Shape: []int{16}, Data: f32Bytes(code[:])},
	}
	state := bnbStateJSON(q.QuantType, bnbLoadBlocksize, torchDTypeName(dtype), shape)
	if q.DoubleQuant {
		dq := bnbDoubleQuantize(absmax)
		out = append(out,
			safetensors.Tensor{Name: name + ".absmax", DType: "U8", Shape: []int{len(dq.codes)}, Data: dq.codes},
			safetensors.Tensor{Name: name + ".nested_absmax", DType: "F32", Shape: []int{len(dq.absmax)}, Data: f32Bytes(dq.absmax)},
			safetensors.Tensor{Name: name + ".nested_quant_map", DType: "F32", Shape: []int{256}, Data: f32Bytes(dynamicMap[:])})
		state = strings.TrimSuffix(state, "}") + fmt.Sprintf(`, "nested_blocksize": %d, "nested_dtype": "float32", "nested_offset": %s}`,
			bnbNestedBlocksize, py.Repr(float64(dq.offset)))
	} else {
		out = append(out, safetensors.Tensor{Name: name + ".absmax", DType: "F32", Shape: []int{len(absmax)}, Data: f32Bytes(absmax)})
	}
	out = append(out, safetensors.Tensor{Name: name + bnbStatePrefix + q.QuantType, DType: "U8",
		Shape: []int{len(state)}, Data: []byte(state)})
	return out, nil
}

// bnbStateJSON is QuantState.as_dict(packed=True)'s JSON as bitsandbytes
// packs it (Python's json.dumps spacing), without the nested keys.
func bnbStateJSON(quantType string, blocksize int, dtype string, shape []int) string {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	return fmt.Sprintf(`{"quant_type": %q, "blocksize": %d, "dtype": %q, "shape": [%s]}`,
		quantType, blocksize, dtype, strings.Join(dims, ", "))
}

// torchDTypeName is torch's name of a safetensors float dtype.
func torchDTypeName(dtype string) string {
	switch dtype {
	case "BF16":
		return "bfloat16"
	case "F16":
		return "float16"
	}
	return "float32"
}
