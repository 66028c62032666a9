package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// GraniteForCausalLM (IBM Granite 3.x): the llama decoder (llama.go's
// tensors, norms, RoPE and SwiGLU MLP) with four scalars from config.json:
//
//	x = embed(tokens) · embedding_multiplier
//	per layer: x += attn(norm(x)) · residual_multiplier, scores q·kᵀ · attention_multiplier
//	           x += mlp(norm(x)) · residual_multiplier
//	logits = lm_head(norm(x)) / logits_scaling
//
// transformers' GraniteConfig defaults each to 1 (the attention scale
// too: not 1/√head_dim), max_position_embeddings to 2048.
func init() {
	Register("GraniteForCausalLM", Arch{Defaults: graniteDefaults, Validate: func(c *Config) error { _, err := newGranite(c); return err },
		Tensors: tensorsOf(llamaTensors), New: func(c *Config) (Model, error) { return newGranite(c) }})
}

// graniteKeys are Granite's own config.json keys.
type graniteKeys struct {
	EmbeddingMultiplier *float64 `json:"embedding_multiplier"`
	ResidualMultiplier  *float64 `json:"residual_multiplier"`
	AttentionMultiplier *float64 `json:"attention_multiplier"`
	LogitsScaling       *float64 `json:"logits_scaling"`
	MLPBias             bool     `json:"mlp_bias"`
}

// graniteDefaults: attention_bias covers o_proj too; 2048 positions.
func graniteDefaults(c *Config) error {
	c.AttentionOutputBias = c.AttentionBias
	if c.Raw["max_position_embeddings"] == nil {
		c.MaxPositionEmbeddings = 2048
	}
	return nil
}

// granite is Granite's blocks: llama's, scaled.
type granite struct {
	*llama
	embedding, residual, logitsScaling float64
}

// newGranite checks Granite's keys and builds its decoder.
func newGranite(c *Config) (*decoder, error) {
	var k graniteKeys
	if err := c.decode(&k); err != nil {
		return nil, err
	}
	if c.HiddenAct != "silu" || k.MLPBias {
		return nil, errs.BadInputf("%s: hidden_act %q with mlp_bias %v is not supported for %s (only silu, no MLP bias)", c.Path, c.HiddenAct, k.MLPBias, c.Arch())
	}
	m := &granite{embedding: or(k.EmbeddingMultiplier, 1), residual: or(k.ResidualMultiplier, 1), logitsScaling: or(k.LogitsScaling, 1)}
	attention := or(k.AttentionMultiplier, 1)
	if !(m.embedding > 0 && m.residual > 0 && m.logitsScaling > 0 && attention > 0) {
		return nil, errs.BadInputf("%s: embedding_multiplier, residual_multiplier, attention_multiplier and logits_scaling must be > 0", c.Path)
	}
	rope, err := c.ropeLayer("")
	if err != nil {
		return nil, err
	}
	n := llamaTensors(tensorTable{}, c)
	m.llama = &llama{rmsEnds: rmsEnds{c, n.ends}, layers: n.layers, rope: rope}
	return newDecoder(c, m, nn.AttentionOptions{Scale: attention}), nil
}

// embed scales the embeddings.
func (m *granite) embed(ctx *context.Context, tokens *Node) *Node {
	return MulScalar(m.llama.embed(ctx, tokens), m.embedding)
}

// layer is llama's with both branches scaled before they are added.
//
//	x [B, T, H], positions [B, T] → [B, T, H]
func (m *granite) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	l, g, eps := &m.layers[i], x.Graph(), m.cfg.RMSNormEps
	h := nn.RMSNorm(x, Param(ctx, g, l.inputNorm), eps)
	q, k, v := m.qkv(ctx, l, h, positions)
	x = Add(x, MulScalar(project(ctx, attend(q, k, v), l.o), m.residual))
	h = nn.RMSNorm(x, Param(ctx, g, l.postNorm), eps)
	return Add(x, MulScalar(gatedMLP(ctx, h, l.mlp, nn.SwiGLU), m.residual))
}

// logits divides the LM head's logits by logits_scaling.
func (m *granite) logits(ctx *context.Context, hidden *Node) *Node {
	return DivScalar(m.llama.logits(ctx, hidden), m.logitsScaling)
}
