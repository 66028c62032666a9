package models

import (
	"bytes"
	"encoding/json"
	"math"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Rotary embeddings have this one home: config.json's keys (rope_theta,
// rope_scaling, partial_rotary_factor, Gemma 3's rope_local_base_freq and
// transformers 5's rope_parameters, flat or keyed by layer type) are read
// once (fillRope), resolved for a kind of layer (ropeFor), checked and
// turned into nn's inverse frequencies (ropeLayer). Every architecture
// gets its rotary embedding from ropeLayer; nothing else reads these keys.

// RopeScaling is config.json's rope scaling of the model's layers (of
// layer type "" for Gemma 3: its global layers' only without
// rope_parameters): Type "linear", "llama3" or "longrope" (rope_long.go;
// Factor 0 when not given); none ("default") is nil.
// Config.RopeScaling shows it; synth writes it.
type RopeScaling struct {
	Type                          string  `json:"rope_type"`
	Factor                        float64 `json:"factor"`
	LowFreqFactor                 float64 `json:"low_freq_factor,omitempty"`
	HighFreqFactor                float64 `json:"high_freq_factor,omitempty"`
	OriginalMaxPositionEmbeddings int     `json:"original_max_position_embeddings,omitempty"`
}

// ropeKeys are config.json's rotary keys (Config.rope).
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
	RopeTheta                     *float64 `json:"rope_theta"`
	PartialRotaryFactor           *float64 `json:"partial_rotary_factor"`
	RopeType                      string   `json:"rope_type"`
	Type                          string   `json:"type"` // older name of rope_type
	Factor                        float64  `json:"factor"`
	LowFreqFactor                 float64  `json:"low_freq_factor"`
	HighFreqFactor                float64  `json:"high_freq_factor"`
	OriginalMaxPositionEmbeddings float64  `json:"original_max_position_embeddings"`
	longRopeKeys                           // rope_long.go
}

// ropeSpec is the rotary embedding of one kind of layer as config.json
// gives it, not yet checked.
type ropeSpec struct {
	theta   float64
	partial float64     // partial_rotary_factor (1: the whole head)
	params  *ropeParams // the scaling object that applies, or nil
}

// rotary is one kind of layer's rotary embedding: the inverse frequencies
// [rot/2] of the first rot dims of each head (rot = D: all of them).
type rotary struct {
	invFreq []float64
	rot     int
	long    *longRope // LongRoPE's long factors (rope_long.go), or nil
}

// apply rotates x by its positions (LongRoPE: by its sequences' lengths
// too, ctx's ropeLenParam on x's graph where set; rope_long.go).
//
//	x [B, T, N, D], positions [B, T] int32 → [B, T, N, D]
func (r rotary) apply(ctx *context.Context, x, positions *Node) *Node {
	if r.long != nil {
		return r.applyLong(x, positions, ropeLen(ctx, x.Graph()))
	}
	return nn.ApplyPartialRoPE(x, positions, r.invFreq, r.rot)
}

// or is *p, or def when the key was absent or null.
func or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// fillRope reads the rotary keys into c.rope and sets RopeTheta and
// RopeScaling to what they say for layers of type "" (checks come with
// ropeLayer, in Validate).
func (c *Config) fillRope() error {
	if err := c.decode(&c.rope); err != nil {
		return err
	}
	r, err := c.ropeFor("")
	if err != nil {
		return err
	}
	c.RopeTheta, c.RopeScaling = r.theta, r.params.public()
	return nil
}

// defaultRopeTheta makes theta the rope_theta of a config that gives none
// at the top level (an architecture's default_theta in transformers, as
// Mixtral's 1e6; 10000 otherwise); rope_parameters' own still wins.
func (c *Config) defaultRopeTheta(theta float64) error {
	if c.rope.RopeTheta != nil {
		return nil
	}
	c.rope.RopeTheta = &theta
	r, err := c.ropeFor("")
	if err != nil {
		return err
	}
	c.RopeTheta, c.RopeScaling = r.theta, r.params.public()
	return nil
}

// ropeFor resolves the rotary parameters of layerType ("" for models with
// one kind of layer): rope_theta (default 10000) and partial_rotary_factor
// (default 1); for sliding layers rope_local_base_freq, which also drops
// rope_scaling (Gemma 3's v4 configs scale the global layers only); then
// rope_parameters (its layerType entry when keyed by layer type) instead
// of rope_scaling; the scaling object's own rope_theta and
// partial_rotary_factor last.
func (c *Config) ropeFor(layerType string) (ropeSpec, error) {
	k := &c.rope
	r := ropeSpec{theta: or(k.RopeTheta, 10000), partial: or(k.PartialRotaryFactor, 1), params: k.RopeScaling}
	if layerType == "sliding_attention" && k.RopeLocalBaseFreq != nil {
		r.theta, r.params = *k.RopeLocalBaseFreq, nil
	}
	p, err := ropeParameters(k.RopeParameters, layerType)
	if err != nil {
		return r, errs.BadInputf("%s: rope_parameters: %v", c.Path, err)
	}
	if p != nil {
		r.params = p
	}
	if r.params != nil {
		r.theta, r.partial = or(r.params.RopeTheta, r.theta), or(r.params.PartialRotaryFactor, r.partial)
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

// kind is the scaling type ("" when none).
func (p *ropeParams) kind() string {
	if p == nil {
		return ""
	}
	if p.RopeType != "" {
		return p.RopeType
	}
	return p.Type
}

// public is p as Config.RopeScaling shows it: nil without scaling.
func (p *ropeParams) public() *RopeScaling {
	if k := p.kind(); k == "" || k == "default" {
		return nil
	}
	return &RopeScaling{Type: p.kind(), Factor: p.Factor, LowFreqFactor: p.LowFreqFactor,
		HighFreqFactor: p.HighFreqFactor, OriginalMaxPositionEmbeddings: int(p.OriginalMaxPositionEmbeddings)}
}

// scaling checks p (the checks transformers' rope_config_validation makes
// for the types supported) and converts it for nn.InvFreq; errors name
// c's file.
func (p *ropeParams) scaling(c *Config) (*nn.RopeScaling, error) {
	switch p.kind() {
	case "", "default":
		return nil, nil
	case "linear", "llama3":
	default:
		return nil, errs.BadInputf("%s: rope_scaling type %q is not supported for %s (supported: default, linear, llama3, longrope)", c.Path, p.kind(), c.Arch())
	}
	if !(p.Factor >= 1) {
		return nil, errs.BadInputf("%s: rope_scaling.factor must be >= 1 for %s scaling (got %g)", c.Path, p.kind(), p.Factor)
	}
	s := &nn.RopeScaling{Type: p.kind(), Factor: p.Factor}
	if p.kind() == "linear" {
		return s, nil
	}
	if !(p.LowFreqFactor > 0) || !(p.HighFreqFactor > p.LowFreqFactor) {
		return nil, errs.BadInputf("%s: rope_scaling needs 0 < low_freq_factor < high_freq_factor (got %g, %g)", c.Path, p.LowFreqFactor, p.HighFreqFactor)
	}
	if o := p.OriginalMaxPositionEmbeddings; !(o >= 1) || o != math.Trunc(o) || o > math.MaxInt32 {
		return nil, errs.BadInputf("%s: rope_scaling.original_max_position_embeddings must be a positive integer for llama3 scaling", c.Path)
	}
	s.LowFreqFactor, s.HighFreqFactor = p.LowFreqFactor, p.HighFreqFactor
	s.OriginalMaxPositionEmbeddings = int(p.OriginalMaxPositionEmbeddings)
	return s, nil
}

// ropeLayer checks layerType's rotary parameters and computes its
// inverse frequencies and rotated dims (head_dim × partial_rotary_factor,
// a positive even number); every error is bad input naming config.json.
func (c *Config) ropeLayer(layerType string) (rotary, error) {
	r, err := c.ropeFor(layerType)
	if err != nil {
		return rotary{}, err
	}
	if !(r.theta > 0) || !(r.partial > 0 && r.partial <= 1) {
		return rotary{}, errs.BadInputf("%s: rope_theta (%g) must be > 0 and partial_rotary_factor (%g) in (0, 1]", c.Path, r.theta, r.partial)
	}
	rot := int(float64(c.HeadDim) * r.partial)
	if rot <= 0 || rot%2 != 0 {
		return rotary{}, errs.BadInputf("%s: rotary dims %d (head_dim %d × partial_rotary_factor %g) must be a positive even number", c.Path, rot, c.HeadDim, r.partial)
	}
	if isLongRope(r.params.kind()) {
		return c.longRopeLayer(r.params, r.theta, rot)
	}
	s, err := r.params.scaling(c)
	if err != nil {
		return rotary{}, err
	}
	inv, err := nn.InvFreq(rot, r.theta, s)
	if err != nil {
		return rotary{}, errs.BadInputf("%s: %v", c.Path, err)
	}
	return rotary{invFreq: inv, rot: rot}, nil
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
