package models

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Phi3 is Phi3ForCausalLM (Phi-3, Phi-3.5, Phi-4-mini): a Llama-style
// pre-norm decoder whose q/k/v projections are one fused qkv_proj
// ([N·D + 2·K·D, H], rows q then k then v) and whose gate and up
// projections are one gate_up_proj ([2F, H], gate rows first), with an
// optional partial rotary factor and sliding window on every layer.
type Phi3 struct {
	cfg                 *Config
	heads, kvHeads, dim int
	invFreq             []float64
	rot, window         int
}

func init() {
	registerArch("Phi3ForCausalLM", newPhi3, archSpec{validate: validatePhi3, tensors: phi3Tensors})
}

// validatePhi3 checks the Phi-3 config.json fields goeval supports.
func validatePhi3(c *Config) error {
	if act := c.rawString("hidden_act", "silu"); act != "silu" {
		return errs.BadInputf("%s: hidden_act %q is not supported for Phi3ForCausalLM (only silu)", c.Path, act)
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return errs.BadInputf("%s: num_attention_heads must be a multiple of num_key_value_heads", c.Path)
	}
	r, err := c.ropeFor("")
	if err == nil {
		_, _, err = r.invFreq(c.HeadDim)
	}
	if err != nil {
		return errs.BadInputf("%s: %v (longrope/su scaling of the 128k Phi-3 models is not supported)", c.Path, err)
	}
	return nil
}

// phi3Tensors lists a Phi-3 checkpoint's tensors.
func phi3Tensors(c *Config) map[string][]int {
	h, f, hd := c.HiddenSize, c.IntermediateSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	m := map[string][]int{"model.embed_tokens.weight": {c.VocabSize, h}, "model.norm.weight": {h}}
	if !c.TieWordEmbeddings {
		m["lm_head.weight"] = []int{c.VocabSize, h}
	}
	for i := range c.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		m[p+"input_layernorm.weight"] = []int{h}
		m[p+"post_attention_layernorm.weight"] = []int{h}
		m[p+"self_attn.qkv_proj.weight"] = []int{q + 2*kv, h}
		m[p+"self_attn.o_proj.weight"] = []int{h, q}
		m[p+"mlp.gate_up_proj.weight"] = []int{2 * f, h}
		m[p+"mlp.down_proj.weight"] = []int{h, f}
	}
	return m
}

// newPhi3 derives the head layout, rotary frequencies and window.
func newPhi3(cfg *Config) (Model, error) {
	m := &Phi3{cfg: cfg, heads: cfg.NumAttentionHeads, kvHeads: cfg.NumKeyValueHeads, dim: cfg.HeadDim,
		window: int(cfg.rawFloat("sliding_window", 0))}
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
func (m *Phi3) Config() *Config { return m.cfg }

// Hidden implements Model.
//
//	tokens [B, T] → embed → L × (x + attn(norm(x)), x + mlp(norm(x))) → norm → [B, T, H]
func (m *Phi3) Hidden(ctx *context.Context, tokens, positions, keyValid *Node) *Node {
	return hiddenWith(m, ctx, tokens, positions, keyValid)
}

// CacheDims implements CachedModel.
func (m *Phi3) CacheDims() (layers, kvHeads, headDim int) {
	return m.cfg.NumHiddenLayers, m.kvHeads, m.dim
}

// Prefill implements CachedModel.
func (m *Phi3) Prefill(ctx *context.Context, tokens *Node) (*Node, []KV) {
	return prefillWith(m, ctx, tokens)
}

// Decode implements CachedModel.
func (m *Phi3) Decode(ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	return decodeWith(m, ctx, tokens, positions, cache)
}

// forward implements hookedDecoder.
func (m *Phi3) forward(ctx *context.Context, tokens, positions *Node, maskFor func(int) *Node, hook func(int) kvHook) *Node {
	g := tokens.Graph()
	eps := m.cfg.RMSNormEps
	x := embed(ctx, tokens, "model.embed_tokens.weight")
	for i := range m.cfg.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		h := nn.RMSNorm(x, Param(ctx, g, p+"input_layernorm.weight"), eps)
		x = Add(x, m.attention(ctx, p+"self_attn.", h, positions, maskFor(m.window), hook(i)))
		h = nn.RMSNorm(x, Param(ctx, g, p+"post_attention_layernorm.weight"), eps)
		x = Add(x, m.mlp(ctx, p+"mlp.", h))
	}
	return nn.RMSNorm(x, Param(ctx, g, "model.norm.weight"), eps)
}

// attention splits the fused qkv projection and attends.
//
//	h [B, T, H] → [B, T, H]
func (m *Phi3) attention(ctx *context.Context, p string, h, positions, mask *Node, hook kvHook) *Node {
	b, t := h.Shape().Dim(0), h.Shape().Dim(1)
	qkv := Linear(ctx, h, p+"qkv_proj.weight", nil) // [B, T, (N+2K)·D]
	nq, nk := m.heads*m.dim, m.kvHeads*m.dim
	part := func(from, to, heads int) *Node {
		return Reshape(Slice(qkv, AxisRange(), AxisRange(), AxisRange(from, to)), b, t, heads, m.dim)
	}
	q := partialRoPE(part(0, nq, m.heads), positions, m.invFreq, m.rot)
	k := partialRoPE(part(nq, nq+nk, m.kvHeads), positions, m.invFreq, m.rot)
	k, v := applyHook(hook, k, part(nq+nk, nq+2*nk, m.kvHeads))
	return Linear(ctx, attention(q, k, v, mask, 1/math.Sqrt(float64(m.dim)), 0), p+"o_proj.weight", nil)
}

// mlp is down(silu(gate) ⊙ up) with gate and up from the fused projection.
//
//	h [B, T, H] → [B, T, H]
func (m *Phi3) mlp(ctx *context.Context, p string, h *Node) *Node {
	f := m.cfg.IntermediateSize
	gu := Linear(ctx, h, p+"gate_up_proj.weight", nil) // [B, T, 2F]
	gate := Slice(gu, AxisRange(), AxisRange(), AxisRange(0, f))
	up := Slice(gu, AxisRange(), AxisRange(), AxisRange(f, 2*f))
	return Linear(ctx, Mul(Mul(gate, Logistic(gate)), up), p+"down_proj.weight", nil)
}

// Logits implements Model.
func (m *Phi3) Logits(ctx *context.Context, hidden *Node) *Node {
	name := "lm_head.weight"
	if m.cfg.TieWordEmbeddings {
		name = "model.embed_tokens.weight"
	}
	return Linear(ctx, hidden, name, nil)
}
