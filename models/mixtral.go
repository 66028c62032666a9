package models

import (
	"github.com/goeval/goeval/models/nn"
)

// MixtralForCausalLM (Mixtral 8x7B, 8x22B): Mistral's decoder — no
// attention biases, a sliding window on every layer when sliding_window
// is set — whose MLPs are MoE blocks (moe.go) named block_sparse_moe:
// num_local_experts experts (default 8) of intermediate_size, w1 the
// gate, w3 the up and w2 the down projection, the top num_experts_per_tok
// (default 2) always renormalised and kept in float32 for the weighted
// sum. transformers' MixtralConfig defaults rope_theta to 1e6,
// rms_norm_eps to 1e-5 and max_position_embeddings to 131072.
func init() {
	Register("MixtralForCausalLM", Arch{Defaults: mixtralDefaults, Validate: func(c *Config) error { _, err := newMixtral(c); return err },
		Tensors: moeTensorsOf(mixtralSpec), New: func(c *Config) (Model, error) { return newMixtral(c) }})
}

// mixtralMoE is Mixtral's MoE layout.
var mixtralMoE = moeArch{experts: 8, topK: 2, alwaysNorm: true, f32Weights: true,
	block: "block_sparse_moe.", proj: [3]string{"w1", "w3", "w2"}}

// mixtralSpec resolves Mixtral's MoE keys.
func mixtralSpec(c *Config) (*moeSpec, error) { return c.moeSpec(mixtralMoE) }

// mixtralKeys are Mixtral's own config.json keys.
type mixtralKeys struct {
	SlidingWindow *float64 `json:"sliding_window"`
}

// mixtralDefaults: no attention biases, the window, MixtralConfig's
// defaults.
func mixtralDefaults(c *Config) error {
	var k mixtralKeys
	if err := c.decode(&k); err != nil {
		return err
	}
	if c.Raw["max_position_embeddings"] == nil {
		c.MaxPositionEmbeddings = 131072
	}
	if c.Raw["rms_norm_eps"] == nil {
		c.RMSNormEps = 1e-5
	}
	c.AttentionBias, c.AttentionOutputBias = false, false
	c.SlidingWindow = int(or(k.SlidingWindow, 0))
	return c.defaultRopeTheta(1e6)
}

// newMixtral checks Mixtral's keys and builds its decoder.
func newMixtral(c *Config) (*decoder, error) {
	if err := validateMoE(c); err != nil {
		return nil, err
	}
	s, err := mixtralSpec(c)
	if err != nil {
		return nil, err
	}
	b, err := newMoELlama(c, s)
	if err != nil {
		return nil, err
	}
	d := newDecoder(c, b, nn.AttentionOptions{})
	windows(d, c.SlidingWindow, func(int) bool { return true })
	d.chunkedHead = b.names.head
	return d, nil
}
