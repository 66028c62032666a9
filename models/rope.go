package models

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// ropeKeys are the config.json keys of rotary embeddings outside the llama
// family (which reads Config.RopeTheta and Config.RopeScaling).
type ropeKeys struct {
	RopeTheta           *float64    `json:"rope_theta"`
	PartialRotaryFactor *float64    `json:"partial_rotary_factor"`
	RopeLocalBaseFreq   *float64    `json:"rope_local_base_freq"` // Gemma 3 before transformers 5
	RopeScaling         *ropeParams `json:"rope_scaling"`
	// RopeParameters is transformers 5's rope_parameters: flat, or keyed by
	// layer type as Gemma 3 saves it.
	RopeParameters json.RawMessage `json:"rope_parameters"`
}

// ropeParams is one rope_scaling / rope_parameters object.
type ropeParams struct {
	RopeTheta           *float64 `json:"rope_theta"`
	PartialRotaryFactor *float64 `json:"partial_rotary_factor"`
	RopeType            string   `json:"rope_type"`
	Type                string   `json:"type"` // older name of rope_type
	Factor              float64  `json:"factor"`
}

// ropeSpec is the rotary embedding of one kind of layer.
type ropeSpec struct {
	theta   float64
	scaling *nn.RopeScaling
	partial float64 // partial_rotary_factor (1: the whole head)
}

// or is *p, or def when the key was absent or null.
func or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// ropeFor resolves the rotary parameters of layerType ("" for models with
// one kind of layer) from rope_parameters or the older rope_theta /
// rope_scaling / partial_rotary_factor / rope_local_base_freq keys.
func (c *Config) ropeFor(layerType string) (ropeSpec, error) {
	var k ropeKeys
	if err := c.decode(&k); err != nil {
		return ropeSpec{}, err
	}
	r := ropeSpec{theta: or(k.RopeTheta, 10000), partial: or(k.PartialRotaryFactor, 1)}
	if layerType == "sliding_attention" {
		r.theta = or(k.RopeLocalBaseFreq, r.theta)
	}
	params := k.RopeScaling
	if layerType == "sliding_attention" && k.RopeLocalBaseFreq != nil {
		params = nil // Gemma 3 v4 configs: rope_scaling applies to global layers only
	}
	if rp, err := ropeParameters(k.RopeParameters, layerType); err != nil {
		return r, errs.BadInputf("%s: rope_parameters: %v", c.Path, err)
	} else if rp != nil {
		params = rp
	}
	if params != nil {
		if err := params.apply(&r, c); err != nil {
			return r, err
		}
	}
	if !(r.theta > 0) || !(r.partial > 0 && r.partial <= 1) {
		return r, errs.BadInputf("%s: rope_theta (%g) must be > 0 and partial_rotary_factor (%g) in (0, 1]", c.Path, r.theta, r.partial)
	}
	return r, nil
}

// ropeParameters decodes rope_parameters, taking the layerType entry when
// it is keyed by layer type; nil when absent.
func ropeParameters(raw json.RawMessage, layerType string) (*ropeParams, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var byType map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byType); err != nil {
		return nil, err
	}
	if sub := bytes.TrimSpace(byType[layerType]); layerType != "" && len(sub) > 0 && sub[0] == '{' {
		raw = sub
	}
	var p ropeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// apply sets r's theta, partial factor and scaling from p ("default" or
// "linear" only); errors name c's file.
func (p *ropeParams) apply(r *ropeSpec, c *Config) error {
	r.theta, r.partial = or(p.RopeTheta, r.theta), or(p.PartialRotaryFactor, r.partial)
	typ := p.RopeType
	if typ == "" {
		typ = p.Type
	}
	switch typ {
	case "", "default":
	case "linear":
		if !(p.Factor >= 1) {
			return errs.BadInputf("%s: linear rope scaling needs factor >= 1 (got %g)", c.Path, p.Factor)
		}
		r.scaling = &nn.RopeScaling{Type: "linear", Factor: p.Factor}
	default:
		return errs.BadInputf("%s: rope type %q is not supported for %s (supported: default, linear)", c.Path, typ, c.Arch())
	}
	return nil
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

// ropeLayer resolves layerType's rotary parameters into inverse frequencies
// and rotated dims; every error is bad input naming config.json.
func (c *Config) ropeLayer(layerType string) ([]float64, int, error) {
	r, err := c.ropeFor(layerType)
	if err != nil {
		return nil, 0, err
	}
	inv, rot, err := r.invFreq(c.HeadDim)
	if err != nil {
		return nil, 0, errs.BadInputf("%s: %v", c.Path, err)
	}
	return inv, rot, nil
}

// layerTypes returns config.json's layer_types (given), or the pattern an
// architecture derives when it is absent (sliding unless
// (i+1) % pattern == 0; pattern 0: all full attention).
func (c *Config) layerTypes(given []string, pattern int) ([]string, error) {
	n := c.NumHiddenLayers
	if given != nil {
		if len(given) != n {
			return nil, errs.BadInputf("%s: layer_types has %d entries for %d layers", c.Path, len(given), n)
		}
		for i, s := range given {
			if s != "sliding_attention" && s != "full_attention" {
				return nil, errs.BadInputf("%s: layer_types[%d] = %v; want \"sliding_attention\" or \"full_attention\"", c.Path, i, s)
			}
		}
		return given, nil
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
