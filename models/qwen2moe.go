package models

import (
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Qwen2MoeForCausalLM (Qwen1.5-MoE, Qwen2-57B-A14B): Qwen2's decoder (q,
// k and v biases when qkv_bias, default true; none on o_proj) whose
// sparse layers' MLPs are MoE blocks (moe.go): num_experts experts
// (default 60) of moe_intermediate_size (1408), the top
// num_experts_per_tok (4), renormalised only when norm_topk_prob, plus a
// shared expert of shared_expert_intermediate_size (5632) weighted by
// σ(shared_expert_gate·h). Layer i is sparse unless in mlp_only_layers
// or (i+1) % decoder_sparse_step ≠ 0; a dense layer has Qwen2's MLP of
// intermediate_size. With use_sliding_window, the layers layer_types
// marks (default: even i below max_window_layers) attend within
// sliding_window.
func init() {
	Register("Qwen2MoeForCausalLM", Arch{Defaults: qwen2MoEDefaults, Validate: func(c *Config) error { _, err := newQwen2MoE(c); return err },
		Tensors: moeTensorsOf(qwen2MoESpec), New: func(c *Config) (Model, error) { return newQwen2MoE(c) }})
}

// qwen2MoE is Qwen2-MoE's MoE layout and Qwen2MoeConfig's defaults.
var qwen2MoE = moeArch{experts: 60, topK: 4, moeFFN: 1408, shared: 5632, steps: true, block: "mlp.", proj: qwenProj}

// qwen2MoESpec resolves Qwen2-MoE's MoE keys.
func qwen2MoESpec(c *Config) (*moeSpec, error) { return c.moeSpec(qwen2MoE) }

// qwen2MoEKeys are Qwen2-MoE's own config.json keys.
type qwen2MoEKeys struct {
	QKVBias          *bool    `json:"qkv_bias"`
	UseSlidingWindow bool     `json:"use_sliding_window"`
	SlidingWindow    *float64 `json:"sliding_window"`
	MaxWindowLayers  *float64 `json:"max_window_layers"`
	LayerTypes       []string `json:"layer_types"`
}

// qwen2MoEDefaults: q/k/v biases from qkv_bias, the window when
// use_sliding_window.
func qwen2MoEDefaults(c *Config) error {
	var k qwen2MoEKeys
	if err := c.decode(&k); err != nil {
		return err
	}
	c.AttentionBias, c.AttentionOutputBias = or(k.QKVBias, true), false
	c.SlidingWindow, c.MaxWindowLayers = 0, int(or(k.MaxWindowLayers, 28))
	if k.UseSlidingWindow {
		c.SlidingWindow = int(or(k.SlidingWindow, 4096))
	}
	return nil
}

// newQwen2MoE checks Qwen2-MoE's keys and builds its decoder.
func newQwen2MoE(c *Config) (*decoder, error) {
	if err := validateMoE(c); err != nil {
		return nil, err
	}
	var k qwen2MoEKeys
	if err := c.decode(&k); err != nil {
		return nil, err
	}
	types, err := c.layerTypes(k.LayerTypes, 0)
	if err != nil {
		return nil, err
	}
	s, err := qwen2MoESpec(c)
	if err != nil {
		return nil, err
	}
	if s.shared < 1 {
		return nil, errs.BadInputf("%s: shared_expert_intermediate_size must be positive", c.Path)
	}
	b, err := newMoELlama(c, s)
	if err != nil {
		return nil, err
	}
	d := newDecoder(c, b, nn.AttentionOptions{})
	windows(d, c.SlidingWindow, func(i int) bool {
		if k.LayerTypes != nil {
			return types[i] == "sliding_attention"
		}
		return (i+1)%2 == 1 && i < c.MaxWindowLayers
	})
	d.chunkedHead = b.names.head
	return d, nil
}
