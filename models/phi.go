package models

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
)

// Phi is PhiForCausalLM (Phi-1.5, Phi-2): one LayerNorm per layer feeding
// attention and MLP in parallel (x + attn(ln(x)) + mlp(ln(x))), biases on
// every projection and on the LM head, partial rotary embeddings (the first
// partial_rotary_factor·head_dim dims of each head) and gelu_new.
type Phi struct {
	cfg                 *Config
	heads, kvHeads, dim int
	invFreq             []float64
	rot                 int // rotated dims per head
	eps                 float64
}

func init() {
	registerArch("PhiForCausalLM", newPhi, archSpec{validate: validatePhi, tensors: phiTensors})
}

// validatePhi checks the Phi-specific config.json fields.
func validatePhi(c *Config) error {
	if act := c.rawString("hidden_act", "gelu_new"); act != "gelu_new" && act != "gelu_pytorch_tanh" {
		return errs.BadInputf("%s: hidden_act %q is not supported for PhiForCausalLM (only gelu_new)", c.Path, act)
	}
	if c.rawBool("qk_layernorm") {
		return errs.BadInputf("%s: qk_layernorm true is not supported for PhiForCausalLM", c.Path)
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return errs.BadInputf("%s: num_attention_heads must be a multiple of num_key_value_heads", c.Path)
	}
	r, err := c.ropeFor("")
	if err == nil {
		_, _, err = r.invFreq(c.HeadDim)
	}
	if err != nil {
		return errs.BadInputf("%s: %v", c.Path, err)
	}
	return nil
}

// phiTensors lists a Phi checkpoint's tensors.
func phiTensors(c *Config) map[string][]int {
	h, f, q, kv := c.HiddenSize, c.IntermediateSize, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	m := map[string][]int{
		"model.embed_tokens.weight":    {c.VocabSize, h},
		"model.final_layernorm.weight": {h}, "model.final_layernorm.bias": {h},
		"lm_head.bias": {c.VocabSize},
	}
	if !c.TieWordEmbeddings {
		m["lm_head.weight"] = []int{c.VocabSize, h}
	}
	for i := range c.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		for name, shape := range map[string][]int{
			"input_layernorm": {h, h}, "self_attn.q_proj": {q, h}, "self_attn.k_proj": {kv, h},
			"self_attn.v_proj": {kv, h}, "self_attn.dense": {h, q}, "mlp.fc1": {f, h}, "mlp.fc2": {h, f},
		} {
			if name == "input_layernorm" {
				m[p+name+".weight"] = []int{h}
			} else {
				m[p+name+".weight"] = shape
			}
			m[p+name+".bias"] = []int{shape[0]}
		}
	}
	return m
}

// newPhi derives the head layout and rotary frequencies.
func newPhi(cfg *Config) (Model, error) {
	m := &Phi{cfg: cfg, heads: cfg.NumAttentionHeads, kvHeads: cfg.NumKeyValueHeads, dim: cfg.HeadDim,
		eps: cfg.rawFloat("layer_norm_eps", 1e-5)}
	r, err := cfg.ropeFor("")
	if err != nil {
		return nil, err
	}
	if m.invFreq, m.rot, err = r.invFreq(m.dim); err != nil {
		return nil, errs.BadInputf("%s: %v", cfg.Path, err)
	}
	return m, nil
}

// Config implements Model.
func (m *Phi) Config() *Config { return m.cfg }

// Hidden implements Model.
//
//	tokens [B, T] → embed → L × (x + attn(ln(x)) + mlp(ln(x))) → final LayerNorm → [B, T, H]
func (m *Phi) Hidden(ctx *context.Context, tokens, positions, keyValid *Node) *Node {
	return hiddenWith(m, ctx, tokens, positions, keyValid)
}

// CacheDims implements CachedModel.
func (m *Phi) CacheDims() (layers, kvHeads, headDim int) {
	return m.cfg.NumHiddenLayers, m.kvHeads, m.dim
}

// Prefill implements CachedModel.
func (m *Phi) Prefill(ctx *context.Context, tokens *Node) (*Node, []KV) {
	return prefillWith(m, ctx, tokens)
}

// Decode implements CachedModel.
func (m *Phi) Decode(ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	return decodeWith(m, ctx, tokens, positions, cache)
}

// forward implements hookedDecoder.
func (m *Phi) forward(ctx *context.Context, tokens, positions *Node, maskFor func(int) *Node, hook func(int) kvHook) *Node {
	g := tokens.Graph()
	x := embed(ctx, tokens, "model.embed_tokens.weight")
	for i := range m.cfg.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		h := layerNorm(x, Param(ctx, g, p+"input_layernorm.weight"), Param(ctx, g, p+"input_layernorm.bias"), m.eps)
		attn := m.attention(ctx, p+"self_attn.", h, positions, maskFor(0), hook(i))
		mp := p + "mlp."
		ff := Linear(ctx, geluTanh(Linear(ctx, h, mp+"fc1.weight", Param(ctx, g, mp+"fc1.bias"))), mp+"fc2.weight", Param(ctx, g, mp+"fc2.bias"))
		x = Add(Add(attn, ff), x)
	}
	return layerNorm(x, Param(ctx, g, "model.final_layernorm.weight"), Param(ctx, g, "model.final_layernorm.bias"), m.eps)
}

// attention is Phi's self-attention with partial rotary embeddings.
//
//	h [B, T, H] → [B, T, H]
func (m *Phi) attention(ctx *context.Context, p string, h, positions, mask *Node, hook kvHook) *Node {
	g := h.Graph()
	b, t := h.Shape().Dim(0), h.Shape().Dim(1)
	proj := func(name string, heads int) *Node {
		return Reshape(Linear(ctx, h, p+name+".weight", Param(ctx, g, p+name+".bias")), b, t, heads, m.dim)
	}
	q := partialRoPE(proj("q_proj", m.heads), positions, m.invFreq, m.rot)
	k := partialRoPE(proj("k_proj", m.kvHeads), positions, m.invFreq, m.rot)
	k, v := applyHook(hook, k, proj("v_proj", m.kvHeads))
	a := attention(q, k, v, mask, 1/math.Sqrt(float64(m.dim)), 0)
	return Linear(ctx, a, p+"dense.weight", Param(ctx, g, p+"dense.bias"))
}

// Logits implements Model: lm_head (weight tied to the embeddings when
// configured) with its bias.
func (m *Phi) Logits(ctx *context.Context, hidden *Node) *Node {
	name := "lm_head.weight"
	if m.cfg.TieWordEmbeddings {
		name = "model.embed_tokens.weight"
	}
	return Linear(ctx, hidden, name, Param(ctx, hidden.Graph(), "lm_head.bias"))
}
