package engine

import (
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/gocpu"
)

// The values of Options.DType (each also has the spellings ParseDType
// accepts).
const (
	// DTypeAuto is the checkpoint's own dtype on a GPU and float32 on a
	// CPU device (ResolveDType).
	DTypeAuto     = "auto"
	DTypeFloat32  = "float32"
	DTypeBFloat16 = "bfloat16"
	DTypeFloat16  = "float16"
)

// dtypeNames maps every accepted spelling (lower case) to its canonical
// name: goeval's, torch's attribute names (lm-eval's dtype= model argument
// is one: float16, half, bfloat16, float32, float) and their short forms.
var dtypeNames = map[string]string{
	"auto":    DTypeAuto,
	"float32": DTypeFloat32, "f32": DTypeFloat32, "fp32": DTypeFloat32, "float": DTypeFloat32,
	"bfloat16": DTypeBFloat16, "bf16": DTypeBFloat16,
	"float16": DTypeFloat16, "f16": DTypeFloat16, "fp16": DTypeFloat16, "half": DTypeFloat16,
}

// ParseDType returns the canonical name of a dtype spelling ("" is
// float32, Options' zero value): "auto", "float32", "bfloat16" or
// "float16". Anything else is bad input.
func ParseDType(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return DTypeFloat32, nil
	}
	if name, ok := dtypeNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return name, nil
	}
	return "", errs.BadInputf("dtype %q is not supported (use auto, float32, bfloat16 or float16)", s)
}

// ResolveDType is the dtype a model computes in: dtype (any ParseDType
// spelling) for a checkpoint whose config.json names torchDType
// (torch_dtype, or transformers ≥ 4.56's dtype; "" when absent) on device
// ("cpu", "xla-cpu" or "cuda"). "auto" is the checkpoint's dtype on cuda,
// as lm-eval's HF model loads with dtype="auto" (float32 when config.json
// names none, or one goeval does not compute in such as float64), and
// float32 on a CPU device, where half precision is slower and less exact:
// there it must be asked for. Other values resolve to their canonical name
// on every device. A pure function: a sweep resolves it for each model.
func ResolveDType(dtype, device, torchDType string) (string, error) {
	name, err := ParseDType(dtype)
	if err != nil || name != DTypeAuto {
		return name, err
	}
	if device != "cuda" {
		return DTypeFloat32, nil
	}
	switch d := dtypeNames[strings.ToLower(strings.TrimPrefix(torchDType, "torch."))]; d {
	case DTypeBFloat16, DTypeFloat16:
		return d, nil
	}
	return DTypeFloat32, nil
}

// dtypeOf is the GoMLX dtype of a canonical name other than auto.
func dtypeOf(name string) dtypes.DType {
	switch name {
	case DTypeBFloat16:
		return dtypes.BFloat16
	case DTypeFloat16:
		return dtypes.Float16
	}
	return dtypes.Float32
}

// precision is how a model holds and computes its numbers.
type precision struct {
	name string // the resolved Options.DType: "float32", "bfloat16" or "float16"
	// weights is the dtype the checkpoint's weights are rounded to (name's).
	weights dtypes.DType
	// compute is the graphs' dtype: weights', or float32 on a backend that
	// does not compute in it (computesIn); the weights then hold values of
	// their dtype in float32.
	compute dtypes.DType
}

// precisionOn is the precision of the resolved dtype name on backend.
func precisionOn(backend backends.Backend, name string) precision {
	p := precision{name: name, weights: dtypeOf(name), compute: dtypeOf(name)}
	if !computesIn(backend.String(), p.weights) {
		p.compute = dtypes.Float32
	}
	return p
}

// computesIn reports whether the backend named name computes in dtype:
// XLA in all three; GoMLX's simplego ("go") in float32 and bfloat16 (it
// has no float16); goeval's own (gocpu) in float32 only. Elsewhere the
// graphs compute in float32 on weights rounded to dtype. On gocpu that
// is bfloat16 as weight-only bf16: the weight matrices stay bfloat16 in
// memory (models.LoadOptions.WeightDType; half the bytes, and decode is
// bound by reading them) and are widened to float32 inside the products
// (internal/gocpu/bf16.go); float16's are rounded and held in float32.
func computesIn(name string, dtype dtypes.DType) bool {
	switch name {
	case gocpu.Name:
		return dtype == dtypes.Float32
	case "go":
		return dtype == dtypes.Float32 || dtype == dtypes.BFloat16
	}
	return true
}

// String describes p for logs: "dtype float16 (float32 compute)".
func (p precision) String() string {
	if p.compute != p.weights {
		return "dtype " + p.name + " (" + strings.ToLower(p.compute.String()) + " compute)"
	}
	return "dtype " + p.name
}

// DType is the dtype the engine's model computes in (Options.DType
// resolved: "float32", "bfloat16" or "float16").
func (e *Engine) DType() string { return e.prec.name }
