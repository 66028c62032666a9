package models

import (
	"encoding/json"
	"fmt"

	"github.com/goeval/goeval/internal/errs"
)

// Quantization is config.json's quantization_config, as transformers
// writes it for a pre-quantized checkpoint. Load reads bitsandbytes 4-bit
// checkpoints (nf4 or fp4, with or without double quantization: bnb.go),
// bitsandbytes 8-bit ones (LLM.int8), GPTQ (4 or 8 bits, v1 or v2
// packing) and AWQ GEMM (intquant*.go), and dequantizes them at load,
// except 8-bit weights, kept as int8 codes and multiplied as LLM.int8
// (int8_forward.go) unless LoadOptions.Dequantize8Bit; every other method
// or variant is a bad-input error (Supported), while Inspect still
// describes it.
type Quantization struct {
	// Method is quant_method: "bitsandbytes", "gptq", "awq", ...
	Method string `json:"quant_method"`
	// LoadIn4Bit and LoadIn8Bit are bitsandbytes' load_in_4bit and
	// load_in_8bit.
	LoadIn4Bit bool `json:"load_in_4bit"`
	LoadIn8Bit bool `json:"load_in_8bit"`
	// QuantType is bnb_4bit_quant_type: "nf4" or "fp4" (transformers'
	// default fp4 when absent).
	QuantType string `json:"bnb_4bit_quant_type"`
	// DoubleQuant is bnb_4bit_use_double_quant: the blocks' absmax
	// values are themselves quantized to 8 bits (nested_absmax).
	DoubleQuant bool `json:"bnb_4bit_use_double_quant"`
	// ComputeDType is bnb_4bit_compute_dtype, the dtype bitsandbytes
	// multiplies in; goeval computes in its own --dtype and records this
	// for inspect.
	ComputeDType string `json:"bnb_4bit_compute_dtype"`
	// QuantStorage is bnb_4bit_quant_storage, the dtype the packed bytes
	// are stored as ("uint8" by default).
	QuantStorage string `json:"bnb_4bit_quant_storage"`
	// SkipModules is llm_int8_skip_modules: modules left unquantized.
	SkipModules []string `json:"llm_int8_skip_modules"`
	// LLMInt8Threshold is llm_int8_threshold, LLM.int8's outlier threshold
	// (nil: BitsAndBytesConfig's 6.0; Int8Threshold).
	LLMInt8Threshold *float64 `json:"llm_int8_threshold,omitempty"`

	// Bits is GPTQ's and AWQ's bits per code (w_bit in AutoAWQ's own file).
	Bits int `json:"bits,omitempty"`
	// GroupSize is GPTQ's and AWQ's group_size (q_group_size in
	// AutoAWQ's): input rows sharing one scale and zero; −1 for one group.
	GroupSize int `json:"group_size,omitempty"`
	// DescAct is GPTQ's desc_act (act-order): g_idx is then a shuffle.
	DescAct bool `json:"desc_act,omitempty"`
	// Sym is GPTQ's sym (recorded; the zero points are read either way).
	Sym *bool `json:"sym,omitempty"`
	// CheckpointFormat is GPTQ's checkpoint_format ("gptq", the v1
	// packing with zero points stored minus one, or "gptq_v2"); gptqmodel
	// names it format. Empty means "gptq".
	CheckpointFormat string `json:"checkpoint_format,omitempty"`
	Format           string `json:"format,omitempty"`
	// IsMarlinFormat is auto-gptq's is_marlin_format (a repacked layout).
	IsMarlinFormat bool `json:"is_marlin_format,omitempty"`
	// ZeroPoint is AWQ's zero_point (asymmetric codes with qzeros).
	ZeroPoint *bool `json:"zero_point,omitempty"`
	// Version is AWQ's packing: "gemm" (read), "gemv", "gemv_fast",
	// "exllama", "ipex", "marlin" (refused).
	Version string `json:"version,omitempty"`
}

// parseQuantization reads quantization_config from the raw config (nil
// when there is none).
func (c *Config) parseQuantization() error {
	raw, ok := c.Raw["quantization_config"]
	if !ok || raw == nil {
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return fmt.Errorf("%s: quantization_config: %w", c.Path, err)
	}
	q := &Quantization{}
	if err := json.Unmarshal(data, q); err != nil {
		return errs.BadInputf("%s: quantization_config is malformed: %v", c.Path, err)
	}
	if q.Method == "bitsandbytes" && q.LoadIn4Bit && q.QuantType == "" {
		q.QuantType = "fp4" // BitsAndBytesConfig's default
	}
	q.normalizeIntQuant()
	c.Quantization = q
	return nil
}

// Supported reports whether Load reads checkpoints of this quantization:
// bitsandbytes 4-bit (nf4 or fp4, packed as uint8) or 8-bit, GPTQ and
// AWQ GEMM (intquant_config.go). The error is one bad-input line naming
// config.json.
func (q *Quantization) Supported(path string) error {
	if q == nil {
		return nil
	}
	switch q.Method {
	case "gptq":
		return q.gptqSupported(path)
	case "awq":
		return q.awqSupported(path)
	case "bitsandbytes":
	default:
		return errs.BadInputf("%s: quantization_config.quant_method %q is not supported (bitsandbytes 4- and 8-bit, GPTQ and AWQ checkpoints are)", path, q.Method)
	}
	switch {
	case q.LoadIn8Bit && q.LoadIn4Bit:
		return errs.BadInputf("%s: quantization_config has both load_in_4bit and load_in_8bit", path)
	case q.LoadIn8Bit:
		return nil
	case !q.LoadIn4Bit:
		return errs.BadInputf("%s: quantization_config has quant_method bitsandbytes but neither load_in_4bit nor load_in_8bit", path)
	case q.QuantType != "nf4" && q.QuantType != "fp4":
		return errs.BadInputf("%s: bnb_4bit_quant_type %q is not supported (nf4 or fp4)", path, q.QuantType)
	case q.QuantStorage != "" && q.QuantStorage != "uint8":
		return errs.BadInputf("%s: bnb_4bit_quant_storage %q is not supported (uint8)", path, q.QuantStorage)
	}
	return nil
}

// String is the quantization in one line, for logs and inspect.
func (q *Quantization) String() string {
	if q == nil {
		return "none"
	}
	if q.Method == "gptq" || q.Method == "awq" {
		return q.intQuantString()
	}
	if q.Method != "bitsandbytes" {
		return q.Method
	}
	if q.LoadIn8Bit {
		return "bitsandbytes 8-bit"
	}
	s := "bitsandbytes 4-bit " + q.QuantType
	if q.DoubleQuant {
		s += ", double quant"
	}
	if q.ComputeDType != "" {
		s += ", compute " + q.ComputeDType
	}
	return s
}

// QuantSummary is a checkpoint's quantization as inspect reports it.
type QuantSummary struct {
	// Description is Quantization.String: "bitsandbytes 4-bit nf4, double quant, compute bfloat16".
	Description string `json:"description"`
	// Config is quantization_config as config.json holds it.
	Config *Quantization `json:"config"`
	// Tensors counts the quantized weights (0 when Load cannot read them).
	Tensors int `json:"tensors"`
	// Blocksizes counts the bitsandbytes 4-bit weights by block size.
	Blocksizes map[int]int `json:"blocksizes,omitempty"`
}

// quantSummary describes q and the weights set holds quantized (nil
// without quantization).
func quantSummary(q *Quantization, set Tensors) *QuantSummary {
	if q == nil {
		return nil
	}
	s := &QuantSummary{Description: q.String(), Config: q}
	switch b := set.(type) {
	case *bnbSet:
		s.Blocksizes = map[int]int{}
		for _, w := range b.weights {
			s.Tensors++
			s.Blocksizes[w.state.Blocksize]++
		}
	case *intQuantSet:
		s.Tensors = len(b.weights)
	}
	return s
}

// openForInspect opens dir's tensors as Load would; a quantization Load
// does not read is returned as unsupported, with the file set itself.
func openForInspect(dir string, cfg *Config) (set Tensors, unsupported error, err error) {
	if unsupported = cfg.Quantization.Supported(configName(cfg)); unsupported == nil {
		set, err = OpenTensors(dir, cfg)
		return set, nil, err
	}
	set, err = openCheckpoint(dir, cfg)
	return set, unsupported, err
}
