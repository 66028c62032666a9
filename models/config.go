// Package models loads Hugging Face checkpoints (config.json, safetensors)
// and builds their GoMLX graphs.
package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
)

// ConfigFile is the name of the Hugging Face model configuration.
const ConfigFile = "config.json"

// Config is the part of a Hugging Face config.json that the decoder-only
// architectures here need, with defaults filled in the way transformers
// fills them. Raw keeps the whole file.
type Config struct {
	Architectures         []string `json:"architectures"`
	ModelType             string   `json:"model_type"`
	HiddenSize            int      `json:"hidden_size"`
	IntermediateSize      int      `json:"intermediate_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	NumKeyValueHeads      int      `json:"num_key_value_heads"`
	HeadDim               int      `json:"head_dim"`
	VocabSize             int      `json:"vocab_size"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	HiddenAct             string   `json:"hidden_act"`
	RMSNormEps            float64  `json:"rms_norm_eps"`
	TieWordEmbeddings     bool     `json:"tie_word_embeddings"`
	// RopeTheta and RopeScaling are the rotary base and scaling of the
	// model's layers (rope.go: rope_theta or rope_parameters, default
	// 10000; rope_scaling or rope_parameters, nil for none).
	RopeTheta   float64      `json:"-"`
	RopeScaling *RopeScaling `json:"-"`
	// AttentionBias: q_proj, k_proj and v_proj have biases (always for
	// qwen2; attention_bias for llama and qwen3; never for mistral).
	AttentionBias bool `json:"attention_bias"`
	// AttentionOutputBias: o_proj has a bias (llama and qwen3 with
	// attention_bias; qwen2 never has one).
	AttentionOutputBias bool `json:"-"`
	// QKNorm: per-head RMSNorm on queries and keys (qwen3).
	QKNorm bool `json:"-"`
	// SlidingWindow is the attention window in tokens, 0 = full attention.
	// Mistral's sliding_window; for qwen2/qwen3 only when use_sliding_window,
	// and then only on layers >= MaxWindowLayers (transformers' layer_types).
	SlidingWindow   int `json:"-"`
	MaxWindowLayers int `json:"-"`
	// TorchDType is torch_dtype (or transformers 5's "dtype"), e.g. "bfloat16".
	TorchDType string `json:"-"`
	// BOSTokenID is -1 when config.json has none.
	BOSTokenID int `json:"-"`
	// EOSTokenIDs: eos_token_id may be one id or a list.
	EOSTokenIDs []int `json:"-"`
	// Quantization is quantization_config (quant.go), nil for none.
	Quantization *Quantization `json:"-"`
	// Raw is the whole config.json.
	Raw map[string]any `json:"-"`
	// Path is the file the config was read from (for messages).
	Path string `json:"-"`
	// Wrapped is the checkpoint's own architecture when it is a multimodal
	// model read as its text model (wrapped.go; Architectures then names
	// the text model), else "".
	Wrapped string `json:"-"`

	data           []byte   // the file, for the architecture's own keys (decode)
	rope           ropeKeys // the rotary keys (rope.go)
	headDimDerived bool     // head_dim absent and set to hidden_size / num_attention_heads
	wrapper        *wrapper // the multimodal architecture read as its text model, or nil
}

// Arch returns architectures[0], the name that selects the graph builder.
func (c *Config) Arch() string {
	if len(c.Architectures) == 0 {
		return ""
	}
	return c.Architectures[0]
}

// Describe names the architecture for people: Arch, and the checkpoint's
// own where a multimodal one is read as its text model.
func (c *Config) Describe() string {
	if c.Wrapped != "" {
		return fmt.Sprintf("%s (the text model of %s)", c.Arch(), c.Wrapped)
	}
	return c.Arch()
}

// LoadConfig reads dir/config.json, fills defaults and validates it.
func LoadConfig(dir string) (*Config, error) {
	path := filepath.Join(dir, ConfigFile)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.BadInputf("%s: no such file; --model must be a Hugging Face checkpoint directory", path)
		}
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig decodes config.json bytes (path names the file in errors),
// fills defaults (the common ones, then the architecture's) and validates.
func ParseConfig(path string, data []byte) (*Config, error) {
	data, wrap, err := unwrapConfig(path, data)
	if err != nil {
		return nil, err
	}
	c := &Config{Path: path, data: data, wrapper: wrap}
	if wrap != nil {
		c.Wrapped = wrap.name
	}
	if err := json.Unmarshal(data, &c.Raw); err != nil {
		return nil, jsonError(path, data, err)
	}
	if err := json.Unmarshal(data, c); err != nil {
		return nil, jsonError(path, data, err)
	}
	if err := c.fillFromRaw(); err != nil {
		return nil, err
	}
	if err := c.validateArch(); err != nil {
		return nil, err
	}
	c.fillDefaults()
	if err := c.checkSizes(); err != nil { // before Defaults, which allocates per layer
		return nil, err
	}
	if a, _ := c.lookup(); a.Defaults != nil {
		if err := a.Defaults(c); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// decode reads the architecture's own config.json keys into v, a struct
// with json tags (pointer fields tell absent or null keys apart).
func (c *Config) decode(v any) error {
	if err := json.Unmarshal(c.data, v); err != nil {
		return jsonError(configName(c), c.data, err)
	}
	return nil
}

// jsonError turns a decoding error into one line naming the file, the line
// and column, and the field when there is one.
func jsonError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return errs.BadInputf("%s:%d:%d: malformed JSON: %v", path, line, col, syn)
	case errors.As(err, &typ):
		line, col := lineCol(data, typ.Offset)
		return errs.BadInputf("%s:%d:%d: field %s must be %s, not a JSON %s", path, line, col, typ.Field, typ.Type, typ.Value)
	}
	return errs.BadInputf("%s: malformed JSON: %v", path, err)
}

// lineCol converts a byte offset to 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// fillFromRaw reads the fields whose JSON form varies: token ids (null, int
// or list), torch_dtype/dtype and the rotary keys (rope.go).
func (c *Config) fillFromRaw() error {
	c.BOSTokenID = -1
	if v, ok := c.Raw["bos_token_id"].(float64); ok {
		c.BOSTokenID = int(v)
	}
	switch v := c.Raw["eos_token_id"].(type) {
	case float64:
		c.EOSTokenIDs = []int{int(v)}
	case []any:
		for _, x := range v {
			f, ok := x.(float64)
			if !ok {
				return errs.BadInputf("%s: eos_token_id must be an integer or a list of integers, got %v", c.Path, v)
			}
			c.EOSTokenIDs = append(c.EOSTokenIDs, int(f))
		}
	case nil:
	default:
		return errs.BadInputf("%s: eos_token_id must be an integer or a list of integers, got %v", c.Path, v)
	}
	for _, k := range []string{"torch_dtype", "dtype"} {
		if s, ok := c.Raw[k].(string); ok && c.TorchDType == "" {
			c.TorchDType = s
		}
	}
	if err := c.parseQuantization(); err != nil {
		return err
	}
	return c.fillRope()
}

// fillDefaults applies transformers' defaults for the common keys
// config.json omits; Arch.Defaults then applies the architecture's.
func (c *Config) fillDefaults() {
	has := func(k string) bool { return c.Raw[k] != nil }
	if !has("num_key_value_heads") {
		c.NumKeyValueHeads = c.NumAttentionHeads
	}
	if !has("head_dim") && c.NumAttentionHeads > 0 {
		c.HeadDim, c.headDimDerived = c.HiddenSize/c.NumAttentionHeads, true
	}
	if !has("rms_norm_eps") {
		c.RMSNormEps = 1e-6
	}
	if !has("hidden_act") {
		c.HiddenAct = "silu"
	}
	if !has("max_position_embeddings") {
		c.MaxPositionEmbeddings = 32768
	}
}

// Validate checks that the configuration describes a model this package
// can build: the common fields, then the architecture's own checks. Every
// message names config.json and the field.
func (c *Config) Validate() error {
	a, err := c.lookup()
	if err != nil {
		return c.validateArch()
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"hidden_size", c.HiddenSize}, {"intermediate_size", c.IntermediateSize},
		{"num_hidden_layers", c.NumHiddenLayers}, {"num_attention_heads", c.NumAttentionHeads},
		{"num_key_value_heads", c.NumKeyValueHeads}, {"vocab_size", c.VocabSize},
		{"max_position_embeddings", c.MaxPositionEmbeddings},
	} {
		if f.v <= 0 {
			return errs.BadInputf("%s: %s is missing or not a positive integer (got %d)", c.Path, f.name, f.v)
		}
	}
	if err := c.checkSizes(); err != nil {
		return err
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return errs.BadInputf("%s: num_attention_heads (%d) must be a multiple of num_key_value_heads (%d)", c.Path, c.NumAttentionHeads, c.NumKeyValueHeads)
	}
	if c.headDimDerived && c.HiddenSize%c.NumAttentionHeads != 0 {
		return errs.BadInputf("%s: hidden_size (%d) must be divisible by num_attention_heads (%d), or head_dim must be given", c.Path, c.HiddenSize, c.NumAttentionHeads)
	}
	if c.HeadDim <= 0 || c.HeadDim%2 != 0 {
		return errs.BadInputf("%s: head_dim must be a positive even integer for rotary embeddings (got %d)", c.Path, c.HeadDim)
	}
	if !(c.RMSNormEps > 0) || !(c.RopeTheta > 0) {
		return errs.BadInputf("%s: rms_norm_eps (%g) and rope_theta (%g) must be positive", c.Path, c.RMSNormEps, c.RopeTheta)
	}
	return a.Validate(c)
}

// MaxLayers and MaxHeadDim bound num_hidden_layers and head_dim (published
// models have at most a few hundred layers and heads of 256), so a corrupt
// config.json fails here instead of allocating per-layer and per-dimension
// state for billions of them.
const (
	MaxLayers  = 4096
	MaxHeadDim = 4096
)

// checkSizes rejects a num_hidden_layers or head_dim above its bound.
func (c *Config) checkSizes() error {
	if c.NumHiddenLayers > MaxLayers || c.HeadDim > MaxHeadDim {
		return errs.BadInputf("%s: num_hidden_layers (%d) must be at most %d and head_dim (%d) at most %d; the config is corrupt",
			c.Path, c.NumHiddenLayers, MaxLayers, c.HeadDim, MaxHeadDim)
	}
	return nil
}

// validateArch checks that architectures[0] is registered.
func (c *Config) validateArch() error {
	arch := c.Arch()
	if arch == "" {
		return errs.BadInputf("%s: architectures is missing or empty; expected one of %v", c.Path, Architectures())
	}
	if _, ok := registry[arch]; !ok {
		return errs.BadInputf("%s: architecture %q is not supported; supported: %v", c.Path, arch, Architectures())
	}
	return nil
}
