package models

import (
	"fmt"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Architectures outside the llama family (phi.go, phi3.go, gemma2.go,
// gemma3.go) register an archSpec: their own config checks and tensor
// list, used by Config.Validate and ExpectedTensors instead of llama's.
type archSpec struct {
	validate func(c *Config) error            // replaces llama's act/rope/window checks
	tensors  func(c *Config) map[string][]int // replaces llama's tensor list
}

var archSpecs = map[string]archSpec{}

// registerArch registers a non-llama architecture: graph constructor,
// config checks and tensor list.
func registerArch(arch string, ctor Constructor, spec archSpec) {
	Register(arch, ctor)
	archSpecs[arch] = spec
	SupportedArchitectures = append(SupportedArchitectures, arch)
}

// rawFloat is config.json's numeric key, or def when absent or null.
func (c *Config) rawFloat(key string, def float64) float64 {
	if v, ok := c.Raw[key].(float64); ok {
		return v
	}
	return def
}

// rawString is config.json's string key, or def.
func (c *Config) rawString(key, def string) string {
	if v, ok := c.Raw[key].(string); ok {
		return v
	}
	return def
}

// rawBool is config.json's boolean key, or false.
func (c *Config) rawBool(key string) bool {
	v, _ := c.Raw[key].(bool)
	return v
}

// ropeSpec is the rotary embedding of one kind of layer.
type ropeSpec struct {
	theta   float64
	scaling *nn.RopeScaling
	partial float64 // partial_rotary_factor (1: the whole head)
}

// ropeFor resolves the rotary parameters of layerType ("" for models with
// one kind of layer) from transformers 5's rope_parameters (flat, or keyed
// by layer type as Gemma 3 saves it) or the older rope_theta /
// rope_scaling / partial_rotary_factor / rope_local_base_freq keys.
func (c *Config) ropeFor(layerType string) (ropeSpec, error) {
	r := ropeSpec{theta: c.rawFloat("rope_theta", 10000), partial: c.rawFloat("partial_rotary_factor", 1)}
	if layerType == "sliding_attention" {
		r.theta = c.rawFloat("rope_local_base_freq", r.theta)
	}
	params, _ := c.Raw["rope_scaling"].(map[string]any)
	if layerType == "sliding_attention" && c.Raw["rope_local_base_freq"] != nil {
		params = nil // Gemma 3 v4 configs: rope_scaling applies to global layers only
	}
	if rp, ok := c.Raw["rope_parameters"].(map[string]any); ok {
		if sub, ok := rp[layerType].(map[string]any); ok && layerType != "" {
			rp = sub
		}
		params = rp
	}
	if params != nil {
		if v, ok := params["rope_theta"].(float64); ok {
			r.theta = v
		}
		if v, ok := params["partial_rotary_factor"].(float64); ok {
			r.partial = v
		}
		typ, _ := params["rope_type"].(string)
		if typ == "" {
			typ, _ = params["type"].(string)
		}
		switch typ {
		case "", "default":
		case "linear":
			f, _ := params["factor"].(float64)
			if !(f >= 1) {
				return r, errs.BadInputf("%s: linear rope scaling needs factor >= 1 (got %g)", c.Path, f)
			}
			r.scaling = &nn.RopeScaling{Type: "linear", Factor: f}
		default:
			return r, errs.BadInputf("%s: rope type %q is not supported for %s (supported: default, linear)", c.Path, typ, c.Arch())
		}
	}
	if !(r.theta > 0) || !(r.partial > 0 && r.partial <= 1) {
		return r, errs.BadInputf("%s: rope_theta (%g) must be > 0 and partial_rotary_factor (%g) in (0, 1]", c.Path, r.theta, r.partial)
	}
	return r, nil
}

// invFreq returns the inverse frequencies for a head of headDim under r,
// and the number of rotated dims (a multiple of 2).
func (r ropeSpec) invFreq(headDim int) ([]float64, int, error) {
	rot := int(float64(headDim) * r.partial)
	if rot <= 0 || rot%2 != 0 {
		return nil, 0, fmt.Errorf("rotary dims %d (head_dim %d × partial_rotary_factor %g) must be a positive even number", rot, headDim, r.partial)
	}
	inv, err := nn.InvFreq(rot, r.theta, r.scaling)
	return inv, rot, err
}

// layerTypes returns config.json's layer_types, or the pattern an
// architecture derives when it is absent (sliding unless
// (i+1) % pattern == 0; pattern 0: all full attention).
func (c *Config) layerTypes(pattern int) ([]string, error) {
	n := c.NumHiddenLayers
	if raw, ok := c.Raw["layer_types"].([]any); ok {
		if len(raw) != n {
			return nil, errs.BadInputf("%s: layer_types has %d entries for %d layers", c.Path, len(raw), n)
		}
		out := make([]string, n)
		for i, v := range raw {
			s, _ := v.(string)
			if s != "sliding_attention" && s != "full_attention" {
				return nil, errs.BadInputf("%s: layer_types[%d] = %v; want \"sliding_attention\" or \"full_attention\"", c.Path, i, v)
			}
			out[i] = s
		}
		return out, nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = "full_attention"
		if pattern > 0 && (i+1)%pattern != 0 {
			out[i] = "sliding_attention"
		}
	}
	return out, nil
}
