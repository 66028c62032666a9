package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// PhiForCausalLM (Phi-1.5, Phi-2): one LayerNorm per layer feeding
// attention and MLP in parallel (x + attn(ln(x)) + mlp(ln(x))), biases on
// every projection and on the LM head, partial rotary embeddings (the first
// partial_rotary_factor·head_dim dims of each head) and gelu_new.
func init() {
	Register("PhiForCausalLM", Arch{
		Validate: func(c *Config) error { _, err := newPhiBlocks(c); return err },
		Tensors:  phiTensors,
		New: func(c *Config) (Model, error) {
			b, err := newPhiBlocks(c)
			if err != nil {
				return nil, err
			}
			return newDecoder(c, b, nn.AttentionOptions{}), nil
		},
	})
}

// phiKeys are Phi's own config.json keys.
type phiKeys struct {
	HiddenAct    *string  `json:"hidden_act"`
	QKLayerNorm  bool     `json:"qk_layernorm"`
	LayerNormEps *float64 `json:"layer_norm_eps"`
}

// phi is Phi's blocks.
type phi struct {
	cfg *Config
	rotary
	eps float64
}

// newPhiBlocks checks Phi's keys and resolves the rotary embedding.
func newPhiBlocks(c *Config) (*phi, error) {
	var k phiKeys
	if err := c.decode(&k); err != nil {
		return nil, err
	}
	if act := or(k.HiddenAct, "gelu_new"); act != "gelu_new" && act != "gelu_pytorch_tanh" {
		return nil, errs.BadInputf("%s: hidden_act %q is not supported for PhiForCausalLM (only gelu_new)", c.Path, act)
	}
	if k.QKLayerNorm {
		return nil, errs.BadInputf("%s: qk_layernorm true is not supported for PhiForCausalLM", c.Path)
	}
	m := &phi{cfg: c, eps: or(k.LayerNormEps, 1e-5)}
	var err error
	m.rotary, err = c.ropeLayer("")
	return m, err
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
		p := layerPrefix(i)
		m[p+"input_layernorm.weight"], m[p+"input_layernorm.bias"] = []int{h}, []int{h}
		for name, shape := range map[string][]int{
			"self_attn.q_proj": {q, h}, "self_attn.k_proj": {kv, h}, "self_attn.v_proj": {kv, h},
			"self_attn.dense": {h, q}, "mlp.fc1": {f, h}, "mlp.fc2": {h, f},
		} {
			m[p+name+".weight"], m[p+name+".bias"] = shape, []int{shape[0]}
		}
	}
	return m
}

func (m *phi) embed(ctx *context.Context, tokens *Node) *Node { return embedTokens(ctx, tokens) }

func (m *phi) norm(ctx *context.Context, x *Node) *Node {
	g := x.Graph()
	return nn.LayerNorm(x, Param(ctx, g, "model.final_layernorm.weight"), Param(ctx, g, "model.final_layernorm.bias"), m.eps)
}

// logits is lm_head (weight tied to the embeddings when configured) with
// its bias.
func (m *phi) logits(ctx *context.Context, hidden *Node) *Node {
	return linear(ctx, hidden, lmHeadName(m.cfg), Param(ctx, hidden.Graph(), "lm_head.bias"))
}

// layer is x + attn(ln(x)) + mlp(ln(x)), mlp = fc2(gelu_new(fc1)).
//
//	x [B, T, H] → [B, T, H]
func (m *phi) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	p, g, c := layerPrefix(i), x.Graph(), m.cfg
	h := nn.LayerNorm(x, Param(ctx, g, p+"input_layernorm.weight"), Param(ctx, g, p+"input_layernorm.bias"), m.eps)
	a := p + "self_attn."
	q := m.apply(projectHeads(ctx, h, a+"q_proj", true, c.NumAttentionHeads, c.HeadDim), positions)
	k := m.apply(projectHeads(ctx, h, a+"k_proj", true, c.NumKeyValueHeads, c.HeadDim), positions)
	v := projectHeads(ctx, h, a+"v_proj", true, c.NumKeyValueHeads, c.HeadDim)
	attn := project(ctx, attend(q, k, v), a+"dense", true)
	ff := project(ctx, nn.GELUTanh(project(ctx, h, p+"mlp.fc1", true)), p+"mlp.fc2", true)
	return Add(Add(attn, ff), x)
}
