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
		Register(arch, Arch{Defaults: llamaDefaults, Validate: validateLlama, Tensors: tensorsOf(llamaTensors), New: newLlama})
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

// llamaLayer names one llama-family decoder layer's tensors.
type llamaLayer struct {
	inputNorm, postNorm string
	q, k, v, o          linearW
	qNorm, kNorm        string // per-head RMSNorms (Qwen3), or ""
	mlp                 gatedW
}

// llamaNames are a llama-family checkpoint's tensor names.
type llamaNames struct {
	ends   endsW
	layers []llamaLayer
}

// llamaTensors declares a llama-family checkpoint's tensors.
func llamaTensors(t tensorTable, c *Config) llamaNames {
	n := llamaNames{ends: t.ends(c)}
	for i := range c.NumHiddenLayers {
		l := llamaAttention(t, c, i)
		l.mlp = t.gatedMLP(layerPrefix(i)+"mlp.", c.HiddenSize, c.IntermediateSize)
		n.layers = append(n.layers, l)
	}
	return n
}

// llamaAttention declares layer i's norms and attention (the llama
// family's, and the MoE decoders' of moe.go); the MLP is left out.
func llamaAttention(t tensorTable, c *Config, i int) llamaLayer {
	h, hd := c.HiddenSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	p := layerPrefix(i)
	a := p + "self_attn."
	l := llamaLayer{
		inputNorm: t.add(p+"input_layernorm.weight", h),
		postNorm:  t.add(p+"post_attention_layernorm.weight", h),
		q:         t.linear(a+"q_proj", q, h, c.AttentionBias),
		k:         t.linear(a+"k_proj", kv, h, c.AttentionBias),
		v:         t.linear(a+"v_proj", kv, h, c.AttentionBias),
		o:         t.linear(a+"o_proj", h, q, c.AttentionOutputBias),
	}
	if c.QKNorm {
		l.qNorm, l.kNorm = t.add(a+"q_norm.weight", hd), t.add(a+"k_norm.weight", hd)
	}
	return l
}

// llama is the llama family's blocks.
type llama struct {
	rmsEnds
	layers []llamaLayer
	rope   rotary
}

// newLlama resolves RoPE and each layer's window (Mistral's on every
// layer, Qwen's from max_window_layers on).
func newLlama(cfg *Config) (Model, error) {
	rope, err := cfg.ropeLayer("")
	if err != nil {
		return nil, err
	}
	n := llamaTensors(tensorTable{}, cfg)
	d := newDecoder(cfg, &llama{rmsEnds: rmsEnds{cfg, n.ends}, layers: n.layers, rope: rope}, nn.AttentionOptions{})
	first := cfg.MaxWindowLayers
	if cfg.Arch() == "MistralForCausalLM" {
		first = 0
	}
	for i := first; i < len(d.attn) && cfg.SlidingWindow > 0; i++ {
		d.attn[i].Window = cfg.SlidingWindow
	}
	d.chunkedHead = n.ends.head
	return d, nil
}

// rmsEnds are the ends of the decoder that the llama family and Phi-3
// share: the token embedding, the final RMSNorm (model.norm) and a
// bias-free LM head.
type rmsEnds struct {
	cfg   *Config
	names endsW
}

func (m rmsEnds) embed(ctx *context.Context, tokens *Node) *Node {
	return embedTokens(ctx, m.names.embed, tokens)
}

func (m rmsEnds) norm(ctx *context.Context, x *Node) *Node {
	return nn.RMSNorm(x, Param(ctx, x.Graph(), m.names.norm), m.cfg.RMSNormEps)
}

func (m rmsEnds) logits(ctx *context.Context, hidden *Node) *Node {
	return linear(ctx, hidden, m.names.head, nil)
}

// layer is decoder layer i: x + attn(norm(x)), then x + mlp(norm(x)).
//
//	x [B, T, H], positions [B, T] → [B, T, H]
func (m *llama) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	l, g, eps := &m.layers[i], x.Graph(), m.cfg.RMSNormEps
	h := nn.RMSNorm(x, Param(ctx, g, l.inputNorm), eps)
	q, k, v := m.qkv(ctx, l, h, positions)
	x = Add(x, project(ctx, attend(q, k, v), l.o))
	h = nn.RMSNorm(x, Param(ctx, g, l.postNorm), eps)
	return Add(x, gatedMLP(ctx, h, l.mlp, nn.SwiGLU))
}

// qkv projects the normed input to rotated queries and keys and to values.
//
//	h [B, T, H], positions [B, T] → q [B, T, N, D], k [B, T, K, D], v [B, T, K, D]
func (m *llama) qkv(ctx *context.Context, l *llamaLayer, h, positions *Node) (q, k, v *Node) {
	c, g := m.cfg, h.Graph()
	q = projectHeads(ctx, h, l.q, c.NumAttentionHeads, c.HeadDim)
	k = projectHeads(ctx, h, l.k, c.NumKeyValueHeads, c.HeadDim)
	v = projectHeads(ctx, h, l.v, c.NumKeyValueHeads, c.HeadDim)
	if l.qNorm != "" {
		q = nn.RMSNorm(q, Param(ctx, g, l.qNorm), c.RMSNormEps)
		k = nn.RMSNorm(k, Param(ctx, g, l.kNorm), c.RMSNormEps)
	}
	return m.rope.apply(ctx, q, positions), m.rope.apply(ctx, k, positions), v
}
