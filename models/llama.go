package models

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Llama is the decoder of LlamaForCausalLM and its close relatives, which
// differ only in data (see newLlama):
//
//	Mistral: sliding-window attention on every layer.
//	Qwen2:   q/k/v biases; sliding window only when use_sliding_window.
//	Qwen3:   per-head RMSNorm of q and k (q_norm, k_norm) before RoPE, explicit head_dim.
type Llama struct {
	cfg                 *Config
	heads, kvHeads, dim int       // N, K, D
	invFreq             []float64 // RoPE inverse frequencies [D/2]
	qkvBias, oBias      bool
	qkNorm              bool
	window              []int // per layer; 0 = full causal attention
}

func init() {
	for _, arch := range []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"} {
		Register(arch, newLlama)
	}
}

// newLlama validates cfg and derives the per-architecture switches.
func newLlama(cfg *Config) (Model, error) {
	m := &Llama{cfg: cfg, heads: cfg.NumAttentionHeads, kvHeads: cfg.NumKeyValueHeads, dim: cfg.HeadDim}
	if m.kvHeads == 0 {
		m.kvHeads = m.heads
	}
	if m.dim == 0 && m.heads > 0 {
		m.dim = cfg.HiddenSize / m.heads
	}
	if m.heads <= 0 || m.kvHeads <= 0 || m.heads%m.kvHeads != 0 {
		return nil, errs.BadInputf("config.json: num_attention_heads (%d) must be a positive multiple of num_key_value_heads (%d)", m.heads, m.kvHeads)
	}
	if cfg.HiddenSize <= 0 || cfg.NumHiddenLayers <= 0 || cfg.VocabSize <= 0 || cfg.IntermediateSize <= 0 {
		return nil, errs.BadInputf("config.json: hidden_size, num_hidden_layers, vocab_size and intermediate_size must be > 0")
	}
	var scaling *nn.RopeScaling
	if rs := cfg.RopeScaling; rs != nil {
		scaling = &nn.RopeScaling{Type: rs.Type, Factor: rs.Factor, LowFreqFactor: rs.LowFreqFactor,
			HighFreqFactor: rs.HighFreqFactor, OriginalMaxPositionEmbeddings: rs.OriginalMaxPositionEmbeddings}
	}
	inv, err := nn.InvFreq(m.dim, cfg.RopeTheta, scaling)
	if err != nil {
		return nil, errs.BadInputf("config.json: %w", err)
	}
	m.invFreq = inv
	m.qkvBias, m.oBias, m.qkNorm = cfg.AttentionBias, cfg.AttentionOutputBias, cfg.QKNorm
	// config.go resolves the window per architecture: Mistral's applies to
	// every layer, Qwen's (use_sliding_window) from max_window_layers on.
	m.window = make([]int, cfg.NumHiddenLayers)
	first := 0
	if cfg.Arch() != "MistralForCausalLM" {
		first = cfg.MaxWindowLayers
	}
	for i := first; i < len(m.window) && cfg.SlidingWindow > 0; i++ {
		m.window[i] = cfg.SlidingWindow
	}
	return m, nil
}

// Config implements Model.
func (m *Llama) Config() *Config { return m.cfg }

// Hidden implements Model.
//
//	tokens [B, T] → embed [B, T, H] → L × (attention + MLP, pre-norm residual) → norm → [B, T, H]
func (m *Llama) Hidden(ctx *context.Context, tokens, positions, keyValid *Node) *Node {
	maskFor := func(window int) *Node { return nn.AttentionMask(positions, positions, keyValid, window) }
	return m.cachedForward(ctx, tokens, positions, maskFor, func(int) kvHook { return nil })
}

// layer is decoder layer i: x + attn(norm(x)), then x + mlp(norm(x)).
//
//	x [B, T, H], positions [B, T], mask [B, T, S] bool → [B, T, H]
//
// hook (see llama_cache.go), when not nil, receives the layer's new keys and values and returns the ones to
// attend to (a KV cache's), which mask [B, T, S] must match.
func (m *Llama) layer(ctx *context.Context, i int, x, positions, mask *Node, hook kvHook) *Node {
	p := fmt.Sprintf("model.layers.%d.", i)
	g := x.Graph()
	h := nn.RMSNorm(x, Param(ctx, g, p+"input_layernorm.weight"), m.cfg.RMSNormEps)
	q, k, v := m.QKV(ctx, i, h, positions)
	if hook != nil {
		k, v = hook(k, v)
	}
	x = Add(x, m.AttentionOut(ctx, i, nn.Attention(q, k, v, mask)))
	h = nn.RMSNorm(x, Param(ctx, g, p+"post_attention_layernorm.weight"), m.cfg.RMSNormEps)
	mp := p + "mlp."
	return Add(x, SwiGLU(ctx, h, mp))
}

// QKV projects the normed input of layer i to rotated queries and keys and
// to values. A KV-cache decoder stores k and v and calls nn.Attention with
// the cached ones.
//
//	h [B, T, H], positions [B, T] → q [B, T, N, D], k [B, T, K, D], v [B, T, K, D]
func (m *Llama) QKV(ctx *context.Context, i int, h, positions *Node) (q, k, v *Node) {
	p := fmt.Sprintf("model.layers.%d.self_attn.", i)
	g := h.Graph()
	b, t := h.Shape().Dim(0), h.Shape().Dim(1)
	proj := func(name string, heads int) *Node {
		var bias *Node
		if m.qkvBias {
			bias = Param(ctx, g, p+name+".bias")
		}
		return Reshape(Linear(ctx, h, p+name+".weight", bias), b, t, heads, m.dim)
	}
	q, k, v = proj("q_proj", m.heads), proj("k_proj", m.kvHeads), proj("v_proj", m.kvHeads)
	if m.qkNorm {
		q = nn.RMSNorm(q, Param(ctx, g, p+"q_norm.weight"), m.cfg.RMSNormEps)
		k = nn.RMSNorm(k, Param(ctx, g, p+"k_norm.weight"), m.cfg.RMSNormEps)
	}
	return nn.ApplyRoPE(q, positions, m.invFreq), nn.ApplyRoPE(k, positions, m.invFreq), v
}

// AttentionOut is layer i's output projection.
//
//	a [B, T, N·D] → [B, T, H]
func (m *Llama) AttentionOut(ctx *context.Context, i int, a *Node) *Node {
	p := fmt.Sprintf("model.layers.%d.self_attn.o_proj.", i)
	var bias *Node
	if m.oBias {
		bias = Param(ctx, a.Graph(), p+"bias")
	}
	return Linear(ctx, a, p+"weight", bias)
}

// Logits implements Model: hidden [..., H] → [..., V], using lm_head.weight
// or, when tie_word_embeddings, the embedding matrix.
func (m *Llama) Logits(ctx *context.Context, hidden *Node) *Node {
	name := "lm_head.weight"
	if m.cfg.TieWordEmbeddings {
		name = "model.embed_tokens.weight"
	}
	return Linear(ctx, hidden, name, nil)
}
