package models

import "github.com/goeval/goeval/models/nn"

// Qwen3MoeForCausalLM (Qwen3-30B-A3B, Qwen3-235B-A22B): Qwen3's decoder
// (per-head RMSNorm of q and k; attention_bias on q, k, v and o; head_dim
// hidden_size / num_attention_heads unless given) whose sparse layers'
// MLPs are MoE blocks (moe.go): num_experts experts (default 128) of
// moe_intermediate_size (768), the top num_experts_per_tok (8),
// renormalised only when norm_topk_prob. Layer i is sparse unless in
// mlp_only_layers or (i+1) % decoder_sparse_step ≠ 0. With
// use_sliding_window every layer attends within sliding_window.
func init() {
	Register("Qwen3MoeForCausalLM", Arch{Defaults: qwen3MoEDefaults, Validate: func(c *Config) error { _, err := newQwen3MoE(c); return err },
		Tensors: moeTensorsOf(qwen3MoESpec), New: func(c *Config) (Model, error) { return newQwen3MoE(c) }})
}

// qwen3MoE is Qwen3-MoE's MoE layout and Qwen3MoeConfig's defaults.
var qwen3MoE = moeArch{experts: 128, topK: 8, moeFFN: 768, steps: true, block: "mlp.", proj: qwenProj}

// qwen3MoESpec resolves Qwen3-MoE's MoE keys.
func qwen3MoESpec(c *Config) (*moeSpec, error) { return c.moeSpec(qwen3MoE) }

// qwen3MoEKeys are Qwen3-MoE's own config.json keys.
type qwen3MoEKeys struct {
	UseSlidingWindow bool     `json:"use_sliding_window"`
	SlidingWindow    *float64 `json:"sliding_window"`
}

// qwen3MoEDefaults: attention_bias on every projection, q/k norms, the
// window when use_sliding_window.
func qwen3MoEDefaults(c *Config) error {
	var k qwen3MoEKeys
	if err := c.decode(&k); err != nil {
		return err
	}
	c.AttentionOutputBias, c.QKNorm, c.SlidingWindow = c.AttentionBias, true, 0
	if k.UseSlidingWindow {
		c.SlidingWindow = int(or(k.SlidingWindow, 4096))
	}
	return nil
}

// newQwen3MoE checks Qwen3-MoE's keys and builds its decoder.
func newQwen3MoE(c *Config) (*decoder, error) {
	if err := validateMoE(c); err != nil {
		return nil, err
	}
	s, err := qwen3MoESpec(c)
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
