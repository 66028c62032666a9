package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// OlmoeForCausalLM (OLMoE-1B-7B): a llama-style decoder whose q and k
// projections are RMS-normed over their whole width (q_norm [N·D],
// k_norm [K·D], before the split into heads, unlike Qwen3's per-head
// norms), then clamped to ±clip_qkv with v when clip_qkv is set;
// attention_bias on q, k, v and o. Every layer's MLP is a MoE block
// (moe.go): num_experts experts (default 64) of intermediate_size, the
// top num_experts_per_tok (8), renormalised only when norm_topk_prob.
// OlmoeConfig defaults rms_norm_eps to 1e-5 and max_position_embeddings
// to 4096; transformers' eager attention never applies a sliding window
// to it.
func init() {
	Register("OlmoeForCausalLM", Arch{Defaults: olmoeDefaults, Validate: func(c *Config) error { _, err := newOLMoE(c); return err },
		Tensors: tensorsOf(olmoeTensors), New: func(c *Config) (Model, error) { return newOLMoE(c) }})
}

// olmoeMoE is OLMoE's MoE layout and OlmoeConfig's defaults.
var olmoeMoE = moeArch{experts: 64, topK: 8, block: "mlp.", proj: qwenProj}

// olmoeKeys are OLMoE's own config.json keys.
type olmoeKeys struct {
	ClipQKV *float64 `json:"clip_qkv"`
}

// olmoeDefaults: attention_bias on o_proj too, OlmoeConfig's defaults.
func olmoeDefaults(c *Config) error {
	if c.Raw["max_position_embeddings"] == nil {
		c.MaxPositionEmbeddings = 4096
	}
	if c.Raw["rms_norm_eps"] == nil {
		c.RMSNormEps = 1e-5
	}
	c.AttentionOutputBias, c.QKNorm, c.SlidingWindow = c.AttentionBias, false, 0
	return nil
}

// olmoeNames are an OLMoE checkpoint's tensor names: moeNames plus each
// layer's full-width q and k norms.
type olmoeNames struct {
	moeNames
	qNorm, kNorm []string
}

// olmoeTensors declares an OLMoE checkpoint's tensors.
func olmoeTensors(t tensorTable, c *Config) olmoeNames {
	s, err := c.moeSpec(olmoeMoE)
	if err != nil {
		return olmoeNames{}
	}
	n := olmoeNames{moeNames: moeTensors(t, c, s)}
	for i := range c.NumHiddenLayers {
		a := layerPrefix(i) + "self_attn."
		n.qNorm = append(n.qNorm, t.add(a+"q_norm.weight", c.HiddenSize))
		n.kNorm = append(n.kNorm, t.add(a+"k_norm.weight", c.HiddenSize/c.NumAttentionHeads*c.NumKeyValueHeads))
	}
	return n
}

// olmoe is OLMoE's blocks: moeLlama's with its own attention inputs.
type olmoe struct {
	*moeLlama
	qNorm, kNorm []string
	clip         float64 // 0: none
}

// newOLMoE checks OLMoE's keys and builds its decoder.
func newOLMoE(c *Config) (*decoder, error) {
	if err := validateMoE(c); err != nil {
		return nil, err
	}
	var k olmoeKeys
	if err := c.decode(&k); err != nil {
		return nil, err
	}
	clip := or(k.ClipQKV, 0)
	if clip < 0 || c.HeadDim*c.NumAttentionHeads != c.HiddenSize {
		return nil, errs.BadInputf("%s: OLMoE needs clip_qkv >= 0 (got %g) and head_dim × num_attention_heads = hidden_size (got %d × %d, %d)",
			c.Path, clip, c.HeadDim, c.NumAttentionHeads, c.HiddenSize)
	}
	s, err := c.moeSpec(olmoeMoE)
	if err != nil {
		return nil, err
	}
	b, err := newMoELlama(c, s)
	if err != nil {
		return nil, err
	}
	n := olmoeTensors(tensorTable{}, c)
	d := newDecoder(c, &olmoe{moeLlama: b, qNorm: n.qNorm, kNorm: n.kNorm, clip: clip}, nn.AttentionOptions{})
	d.chunkedHead = b.names.head
	return d, nil
}

// layer is x + attn(norm(x)), then x + moe(norm(x)).
//
//	x [B, T, H], positions [B, T] → [B, T, H]
func (m *olmoe) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	l, g, c := &m.layers[i], x.Graph(), m.cfg
	h := nn.RMSNorm(x, Param(ctx, g, l.inputNorm), c.RMSNormEps)
	q := nn.RMSNorm(project(ctx, h, l.q), Param(ctx, g, m.qNorm[i]), c.RMSNormEps) // [B, T, N·D]
	k := nn.RMSNorm(project(ctx, h, l.k), Param(ctx, g, m.kNorm[i]), c.RMSNormEps) // [B, T, K·D]
	v := project(ctx, h, l.v)
	if m.clip > 0 {
		q, k, v = ClipScalar(q, -m.clip, m.clip), ClipScalar(k, -m.clip, m.clip), ClipScalar(v, -m.clip, m.clip)
	}
	b, t := x.Shape().Dim(0), x.Shape().Dim(1)
	q = m.rope.apply(ctx, Reshape(q, b, t, c.NumAttentionHeads, c.HeadDim), positions)
	k = m.rope.apply(ctx, Reshape(k, b, t, c.NumKeyValueHeads, c.HeadDim), positions)
	v = Reshape(v, b, t, c.NumKeyValueHeads, c.HeadDim)
	x = Add(x, project(ctx, attend(q, k, v), l.o))
	return Add(x, m.mlp(ctx, i, nn.RMSNorm(x, Param(ctx, g, l.postNorm), c.RMSNormEps)))
}
