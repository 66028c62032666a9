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
		Tensors:  tensorsOf(phiTensors),
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
	eps   float64
	names phiNames
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
	m := &phi{cfg: c, eps: or(k.LayerNormEps, 1e-5), names: phiTensors(tensorTable{}, c)}
	var err error
	m.rotary, err = c.ropeLayer("")
	return m, err
}

// phiLayer names one Phi decoder layer's tensors.
type phiLayer struct {
	norm                     layerNormW // input_layernorm
	q, k, v, dense, fc1, fc2 linearW
}

// layerNormW names a LayerNorm's weight and bias, each [H].
type layerNormW struct{ weight, bias string }

// phiNames are a Phi checkpoint's tensor names.
type phiNames struct {
	embed  string
	norm   layerNormW // final_layernorm
	head   linearW    // lm_head (the embedding when tied) and its bias
	layers []phiLayer
}

// phiTensors declares a Phi checkpoint's tensors.
func phiTensors(t tensorTable, c *Config) phiNames {
	h, f, q, kv := c.HiddenSize, c.IntermediateSize, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	layerNorm := func(module string) layerNormW {
		return layerNormW{weight: t.add(module+".weight", h), bias: t.add(module+".bias", h)}
	}
	n := phiNames{embed: t.add(embedName, c.VocabSize, h), norm: layerNorm("model.final_layernorm")}
	n.head = linearW{weight: n.embed, bias: t.add("lm_head.bias", c.VocabSize)}
	if !c.TieWordEmbeddings {
		n.head.weight = t.add("lm_head.weight", c.VocabSize, h)
	}
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		n.layers = append(n.layers, phiLayer{
			norm: layerNorm(p + "input_layernorm"),
			q:    t.linear(p+"self_attn.q_proj", q, h, true), k: t.linear(p+"self_attn.k_proj", kv, h, true),
			v: t.linear(p+"self_attn.v_proj", kv, h, true), dense: t.linear(p+"self_attn.dense", h, q, true),
			fc1: t.linear(p+"mlp.fc1", f, h, true), fc2: t.linear(p+"mlp.fc2", h, f, true),
		})
	}
	return n
}

func (m *phi) embed(ctx *context.Context, tokens *Node) *Node {
	return embedTokens(ctx, m.names.embed, tokens)
}

func (m *phi) norm(ctx *context.Context, x *Node) *Node {
	return m.layerNorm(ctx, x, m.names.norm)
}

// layerNorm is nn.LayerNorm with n's weight and bias.
func (m *phi) layerNorm(ctx *context.Context, x *Node, n layerNormW) *Node {
	g := x.Graph()
	return nn.LayerNorm(x, Param(ctx, g, n.weight), Param(ctx, g, n.bias), m.eps)
}

// logits is lm_head (weight tied to the embeddings when configured) with
// its bias.
func (m *phi) logits(ctx *context.Context, hidden *Node) *Node {
	return project(ctx, hidden, m.names.head)
}

// layer is x + attn(ln(x)) + mlp(ln(x)), mlp = fc2(gelu_new(fc1)).
//
//	x [B, T, H] → [B, T, H]
func (m *phi) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	l, c := &m.names.layers[i], m.cfg
	h := m.layerNorm(ctx, x, l.norm)
	q := m.apply(ctx, projectHeads(ctx, h, l.q, c.NumAttentionHeads, c.HeadDim), positions)
	k := m.apply(ctx, projectHeads(ctx, h, l.k, c.NumKeyValueHeads, c.HeadDim), positions)
	v := projectHeads(ctx, h, l.v, c.NumKeyValueHeads, c.HeadDim)
	attn := project(ctx, attend(q, k, v), l.dense)
	ff := project(ctx, nn.GELUTanh(project(ctx, h, l.fc1)), l.fc2)
	return Add(Add(attn, ff), x)
}
