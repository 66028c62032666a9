package models

import (
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// The llama family: LlamaForCausalLM and its close relatives, which differ
// only in data (llamaDefaults):
//
//	Mistral: sliding-window attention on every layer.
//	Qwen2:   q/k/v biases; sliding window only when use_sliding_window.
//	Qwen3:   per-head RMSNorm of q and k (q_norm, k_norm) before RoPE, head_dim default 128.
//
// Layer i: x += o_proj(attn(rope(q_proj(n)), rope(k_proj(n)), v_proj(n))) with
// n = input_layernorm(x), then x += down(silu(gate(n)) ⊙ up(n)) with
// n = post_attention_layernorm(x).
func init() {
	for _, arch := range []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"} {
		Register(arch, Arch{Defaults: llamaDefaults, Validate: validateLlama, Tensors: llamaTensors, New: newLlama})
	}
}

// llamaKeys are the llama family's own config.json keys.
type llamaKeys struct {
	HeadDim               *float64 `json:"head_dim"`
	MaxPositionEmbeddings *float64 `json:"max_position_embeddings"`
	SlidingWindow         *float64 `json:"sliding_window"`
	UseSlidingWindow      bool     `json:"use_sliding_window"`
	MaxWindowLayers       *float64 `json:"max_window_layers"`
	MLPBias               bool     `json:"mlp_bias"`
}

// llamaDefaults fills the per-architecture defaults and switches.
func llamaDefaults(c *Config) error {
	var k llamaKeys
	if err := c.decode(&k); err != nil {
		return err
	}
	arch := c.Arch()
	if arch == "Qwen3ForCausalLM" && k.HeadDim == nil {
		c.HeadDim, c.headDimDerived = 128, false // Qwen3Config's default, not hidden/heads
	}
	if k.MaxPositionEmbeddings == nil {
		c.MaxPositionEmbeddings = map[string]int{"LlamaForCausalLM": 2048, "MistralForCausalLM": 131072}[arch]
		if c.MaxPositionEmbeddings == 0 {
			c.MaxPositionEmbeddings = 32768
		}
	}
	switch arch {
	case "MistralForCausalLM":
		c.SlidingWindow = int(or(k.SlidingWindow, 0))
		c.AttentionBias, c.AttentionOutputBias = false, false
	case "Qwen2ForCausalLM":
		c.AttentionBias, c.AttentionOutputBias = true, false
	case "Qwen3ForCausalLM":
		c.AttentionOutputBias, c.QKNorm = c.AttentionBias, true
	default:
		c.AttentionOutputBias = c.AttentionBias
	}
	if k.UseSlidingWindow && (arch == "Qwen2ForCausalLM" || arch == "Qwen3ForCausalLM") {
		c.SlidingWindow, c.MaxWindowLayers = int(or(k.SlidingWindow, 0)), int(or(k.MaxWindowLayers, 0))
	}
	return nil
}

// validateLlama checks activation, MLP bias, window and rotary embedding.
func validateLlama(c *Config) error {
	if c.HiddenAct != "silu" && c.HiddenAct != "swish" {
		return errs.BadInputf("%s: hidden_act %q is not supported for %s (only silu)", c.Path, c.HiddenAct, c.Arch())
	}
	var k llamaKeys
	if err := c.decode(&k); err != nil {
		return err
	}
	if k.MLPBias {
		return errs.BadInputf("%s: mlp_bias true is not supported", c.Path)
	}
	if c.SlidingWindow < 0 {
		return errs.BadInputf("%s: sliding_window must not be negative (got %d)", c.Path, c.SlidingWindow)
	}
	_, err := c.ropeLayer("")
	return err
}

// llamaTensors lists a llama-family checkpoint's tensors.
func llamaTensors(c *Config) map[string][]int {
	h, hd, f := c.HiddenSize, c.HeadDim, c.IntermediateSize
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	m := outerTensors(c)
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		m[p+"input_layernorm.weight"] = []int{h}
		m[p+"post_attention_layernorm.weight"] = []int{h}
		m[p+"self_attn.q_proj.weight"] = []int{q, h}
		m[p+"self_attn.k_proj.weight"] = []int{kv, h}
		m[p+"self_attn.v_proj.weight"] = []int{kv, h}
		m[p+"self_attn.o_proj.weight"] = []int{h, q}
		if c.AttentionBias {
			m[p+"self_attn.q_proj.bias"] = []int{q}
			m[p+"self_attn.k_proj.bias"] = []int{kv}
			m[p+"self_attn.v_proj.bias"] = []int{kv}
		}
		if c.AttentionOutputBias {
			m[p+"self_attn.o_proj.bias"] = []int{h}
		}
		if c.QKNorm {
			m[p+"self_attn.q_norm.weight"] = []int{hd}
			m[p+"self_attn.k_norm.weight"] = []int{hd}
		}
		m[p+"mlp.gate_proj.weight"] = []int{f, h}
		m[p+"mlp.up_proj.weight"] = []int{f, h}
		m[p+"mlp.down_proj.weight"] = []int{h, f}
	}
	return m
}

// llama is the llama family's blocks.
type llama struct {
	rmsEnds
	rope rotary
}

// newLlama resolves RoPE and each layer's window (Mistral's on every
// layer, Qwen's from max_window_layers on).
func newLlama(cfg *Config) (Model, error) {
	rope, err := cfg.ropeLayer("")
	if err != nil {
		return nil, err
	}
	d := newDecoder(cfg, &llama{rmsEnds: rmsEnds{cfg}, rope: rope}, nn.AttentionOptions{})
	first := cfg.MaxWindowLayers
	if cfg.Arch() == "MistralForCausalLM" {
		first = 0
	}
	for i := first; i < len(d.attn) && cfg.SlidingWindow > 0; i++ {
		d.attn[i].Window = cfg.SlidingWindow
	}
	d.chunkedHead = lmHeadName(cfg)
	return d, nil
}

// rmsEnds are the ends of the decoder that the llama family and Phi-3
// share: the token embedding, the final RMSNorm (model.norm) and a
// bias-free LM head.
type rmsEnds struct{ cfg *Config }

func (m rmsEnds) embed(ctx *context.Context, tokens *Node) *Node { return embedTokens(ctx, tokens) }

func (m rmsEnds) norm(ctx *context.Context, x *Node) *Node {
	return nn.RMSNorm(x, Param(ctx, x.Graph(), "model.norm.weight"), m.cfg.RMSNormEps)
}

func (m rmsEnds) logits(ctx *context.Context, hidden *Node) *Node {
	return linear(ctx, hidden, lmHeadName(m.cfg), nil)
}

// layer is decoder layer i: x + attn(norm(x)), then x + mlp(norm(x)).
//
//	x [B, T, H], positions [B, T] → [B, T, H]
func (m *llama) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	p, g, eps := layerPrefix(i), x.Graph(), m.cfg.RMSNormEps
	h := nn.RMSNorm(x, Param(ctx, g, p+"input_layernorm.weight"), eps)
	q, k, v := m.qkv(ctx, p+"self_attn.", h, positions)
	x = Add(x, project(ctx, attend(q, k, v), p+"self_attn.o_proj", m.cfg.AttentionOutputBias))
	h = nn.RMSNorm(x, Param(ctx, g, p+"post_attention_layernorm.weight"), eps)
	return Add(x, gatedMLP(ctx, h, p+"mlp.", nn.SwiGLU))
}

// qkv projects the normed input to rotated queries and keys and to values.
//
//	h [B, T, H], positions [B, T] → q [B, T, N, D], k [B, T, K, D], v [B, T, K, D]
func (m *llama) qkv(ctx *context.Context, p string, h, positions *Node) (q, k, v *Node) {
	c, g := m.cfg, h.Graph()
	q = projectHeads(ctx, h, p+"q_proj", c.AttentionBias, c.NumAttentionHeads, c.HeadDim)
	k = projectHeads(ctx, h, p+"k_proj", c.AttentionBias, c.NumKeyValueHeads, c.HeadDim)
	v = projectHeads(ctx, h, p+"v_proj", c.AttentionBias, c.NumKeyValueHeads, c.HeadDim)
	if c.QKNorm {
		q = nn.RMSNorm(q, Param(ctx, g, p+"q_norm.weight"), c.RMSNormEps)
		k = nn.RMSNorm(k, Param(ctx, g, p+"k_norm.weight"), c.RMSNormEps)
	}
	return m.rope.apply(q, positions), m.rope.apply(k, positions), v
}
