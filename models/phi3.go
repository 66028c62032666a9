package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Phi3ForCausalLM (Phi-3, Phi-3.5, Phi-4-mini): a Llama-style pre-norm
// decoder whose q/k/v projections are one fused qkv_proj ([N·D + 2·K·D, H],
// rows q then k then v) and whose gate and up projections are one
// gate_up_proj ([2F, H], gate rows first), with an optional partial rotary
// factor and sliding window on every layer.
func init() {
	Register("Phi3ForCausalLM", Arch{
		Validate: func(c *Config) error { _, _, err := newPhi3Blocks(c); return err },
		Tensors:  phi3Tensors,
		New: func(c *Config) (Model, error) {
			b, window, err := newPhi3Blocks(c)
			if err != nil {
				return nil, err
			}
			return newDecoder(c, b, nn.AttentionOptions{Window: window}), nil
		},
	})
}

// phi3Keys are Phi-3's own config.json keys.
type phi3Keys struct {
	HiddenAct     *string  `json:"hidden_act"`
	SlidingWindow *float64 `json:"sliding_window"`
}

// phi3 is Phi-3's blocks.
type phi3 struct {
	rmsEnds // llama.go
	rope    rotary
}

// newPhi3Blocks checks Phi-3's keys and resolves RoPE and the window.
func newPhi3Blocks(c *Config) (*phi3, int, error) {
	var k phi3Keys
	if err := c.decode(&k); err != nil {
		return nil, 0, err
	}
	if act := or(k.HiddenAct, "silu"); act != "silu" {
		return nil, 0, errs.BadInputf("%s: hidden_act %q is not supported for Phi3ForCausalLM (only silu)", c.Path, act)
	}
	rope, err := c.ropeLayer("")
	if err != nil {
		return nil, 0, errs.BadInputf("%v (longrope/su scaling of the 128k Phi-3 models is not supported)", err)
	}
	return &phi3{rmsEnds: rmsEnds{c}, rope: rope}, int(or(k.SlidingWindow, 0)), nil
}

// phi3Tensors lists a Phi-3 checkpoint's tensors.
func phi3Tensors(c *Config) map[string][]int {
	h, f, hd := c.HiddenSize, c.IntermediateSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	m := outerTensors(c)
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		m[p+"input_layernorm.weight"] = []int{h}
		m[p+"post_attention_layernorm.weight"] = []int{h}
		m[p+"self_attn.qkv_proj.weight"] = []int{q + 2*kv, h}
		m[p+"self_attn.o_proj.weight"] = []int{h, q}
		m[p+"mlp.gate_up_proj.weight"] = []int{2 * f, h}
		m[p+"mlp.down_proj.weight"] = []int{h, f}
	}
	return m
}

// layer is x + attn(norm(x)), then x + mlp(norm(x)).
//
//	x [B, T, H] → [B, T, H]
func (m *phi3) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	p, g, c := layerPrefix(i), x.Graph(), m.cfg
	h := nn.RMSNorm(x, Param(ctx, g, p+"input_layernorm.weight"), c.RMSNormEps)
	b, t := h.Shape().Dim(0), h.Shape().Dim(1)
	qkv := project(ctx, h, p+"self_attn.qkv_proj", false) // [B, T, (N+2K)·D]
	nq, nk := c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	part := func(from, to, heads int) *Node {
		return Reshape(Slice(qkv, AxisRange(), AxisRange(), AxisRange(from, to)), b, t, heads, c.HeadDim)
	}
	q := m.rope.apply(part(0, nq, c.NumAttentionHeads), positions)
	k := m.rope.apply(part(nq, nq+nk, c.NumKeyValueHeads), positions)
	x = Add(x, project(ctx, attend(q, k, part(nq+nk, nq+2*nk, c.NumKeyValueHeads)), p+"self_attn.o_proj", false))
	h = nn.RMSNorm(x, Param(ctx, g, p+"post_attention_layernorm.weight"), c.RMSNormEps)
	gu := project(ctx, h, p+"mlp.gate_up_proj", false) // [B, T, 2F]
	f := c.IntermediateSize
	up := nn.SwiGLU(Slice(gu, AxisRange(), AxisRange(), AxisRange(0, f)), Slice(gu, AxisRange(), AxisRange(), AxisRange(f, 2*f)))
	return Add(x, project(ctx, up, p+"mlp.down_proj", false))
}
