package synth

import (
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
)

// QuantizeKinds are ModelOptions.Quantize's values: a bitsandbytes 4-bit
// checkpoint as transformers saves one loaded with load_in_4bit (nf4 or
// fp4, "-dq" with double quantization).
var QuantizeKinds = []string{"bnb-nf4", "bnb-fp4", "bnb-nf4-dq", "bnb-fp4-dq"}

// quantization is the load_in_4bit settings of o.Quantize (nil: none).
func (o *ModelOptions) quantization() (*models.Quantization, error) {
	if o.Quantize == "" {
		return nil, nil
	}
	kind, dq := strings.CutSuffix(o.Quantize, "-dq")
	qt, ok := strings.CutPrefix(kind, "bnb-")
	if !ok || (qt != "nf4" && qt != "fp4") {
		return nil, errs.BadInputf("--quantize %q: use %s", o.Quantize, strings.Join(QuantizeKinds, ", "))
	}
	if o.Shards > 1 {
		return nil, errs.BadInputf("--quantize writes one model.safetensors; drop --shards")
	}
	if o.NaNWeights {
		return nil, errs.BadInputf("--quantize with --nan-weights: NaN weights have no 4-bit codes")
	}
	return models.LoadIn4Bit(qt, dq, synthDTypes[o.DType][1])
}

// addQuantizationConfig adds o.Quantize's quantization_config to the
// config.json keys m.
func (o *ModelOptions) addQuantizationConfig(m map[string]any) error {
	q, err := o.quantization()
	if err != nil || q == nil {
		return err
	}
	m["quantization_config"], err = models.BNBConfigJSON(q)
	return err
}

// quantizeWeights rewrites the float weights Model wrote in o.Out as
// o.Quantize says (models.WriteLoadIn4Bit).
func (o *ModelOptions) quantizeWeights() error {
	q, err := o.quantization()
	if err != nil || q == nil {
		return err
	}
	return models.WriteLoadIn4Bit(o.Out, q)
}
