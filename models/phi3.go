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
// factor, LongRoPE (Phi-3-128k, Phi-3.5: rope_long.go) and sliding window
// on every layer.
func init() {
	Register("Phi3ForCausalLM", Arch{
		Validate: func(c *Config) error { _, _, err := newPhi3Blocks(c); return err },
		Tensors:  tensorsOf(phi3Tensors),
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
	layers  []phi3Layer
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
		return nil, 0, err
	}
	n := phi3Tensors(tensorTable{}, c)
	return &phi3{rmsEnds: rmsEnds{c, n.ends}, layers: n.layers, rope: rope}, int(or(k.SlidingWindow, 0)), nil
}

// phi3Layer names one Phi-3 decoder layer's tensors.
type phi3Layer struct {
	inputNorm, postNorm string
	qkv, o              linearW // qkv: [N·D + 2·K·D, H], rows q then k then v
	gateUp, down        linearW // gateUp: [2F, H], gate rows first
}

// phi3Names are a Phi-3 checkpoint's tensor names.
type phi3Names struct {
	ends   endsW
	layers []phi3Layer
}

// phi3Tensors declares a Phi-3 checkpoint's tensors.
func phi3Tensors(t tensorTable, c *Config) phi3Names {
	h, f, hd := c.HiddenSize, c.IntermediateSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	n := phi3Names{ends: t.ends(c)}
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		n.layers = append(n.layers, phi3Layer{
			inputNorm: t.add(p+"input_layernorm.weight", h),
			postNorm:  t.add(p+"post_attention_layernorm.weight", h),
			qkv:       t.linear(p+"self_attn.qkv_proj", q+2*kv, h, false),
			o:         t.linear(p+"self_attn.o_proj", h, q, false),
			gateUp:    t.linear(p+"mlp.gate_up_proj", 2*f, h, false),
			down:      t.linear(p+"mlp.down_proj", h, f, false),
		})
	}
	return n
}

// layer is x + attn(norm(x)), then x + mlp(norm(x)).
//
//	x [B, T, H] → [B, T, H]
func (m *phi3) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	l, g, c := &m.layers[i], x.Graph(), m.cfg
	h := nn.RMSNorm(x, Param(ctx, g, l.inputNorm), c.RMSNormEps)
	b, t := h.Shape().Dim(0), h.Shape().Dim(1)
	qkv := project(ctx, h, l.qkv) // [B, T, (N+2K)·D]
	nq, nk := c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	part := func(from, to, heads int) *Node {
		return Reshape(Slice(qkv, AxisRange(), AxisRange(), AxisRange(from, to)), b, t, heads, c.HeadDim)
	}
	q := m.rope.apply(ctx, part(0, nq, c.NumAttentionHeads), positions)
	k := m.rope.apply(ctx, part(nq, nq+nk, c.NumKeyValueHeads), positions)
	x = Add(x, project(ctx, attend(q, k, part(nq+nk, nq+2*nk, c.NumKeyValueHeads)), l.o))
	h = nn.RMSNorm(x, Param(ctx, g, l.postNorm), c.RMSNormEps)
	gu := project(ctx, h, l.gateUp) // [B, T, 2F]
	f := c.IntermediateSize
	up := nn.SwiGLU(Slice(gu, AxisRange(), AxisRange(), AxisRange(0, f)), Slice(gu, AxisRange(), AxisRange(), AxisRange(f, 2*f)))
	return Add(x, project(ctx, up, l.down))
}
