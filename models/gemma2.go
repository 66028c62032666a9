package models

import (
	"math"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// The Gemma decoder, Gemma2ForCausalLM here and Gemma3ForCausalLM (text) in
// gemma3.go:
//
//	x = embed(tokens) · √H
//	per layer: x += post_attn_norm(attn(input_norm(x)))
//	           x += post_ff_norm(mlp(pre_ff_norm(x)))      mlp = down(gelu_tanh(gate) ⊙ up)
//	logits = softcap_final(lm_head(norm(x)))
//
// Norms are (1+w)·x/rms(x) in float32. Scores are q·kᵀ/√query_pre_attn_scalar,
// soft-capped when attn_logit_softcapping is set; sliding_attention layers
// see only the last sliding_window keys. Gemma 2 alternates sliding and
// global layers, sliding first.
func init() {
	registerGemma("Gemma2ForCausalLM", gemmaVariant{pattern: func(*gemmaKeys) int { return 2 }})
}

// gemmaVariant is what tells the Gemma generations apart.
type gemmaVariant struct {
	// pattern is the sliding-window pattern used without layer_types.
	pattern func(k *gemmaKeys) int
	// qkNorm: per-head (1+w) RMSNorm of q and k before RoPE.
	qkNorm bool
	// ropePerLayerType: separate RoPE parameters for sliding and global layers.
	ropePerLayerType bool
}

// gemmaKeys are Gemma's own config.json keys.
type gemmaKeys struct {
	HiddenActivation        *string  `json:"hidden_activation"`
	HiddenAct               *string  `json:"hidden_act"`
	AttentionBias           bool     `json:"attention_bias"`
	Bidirectional           bool     `json:"use_bidirectional_attention"`
	QueryPreAttnScalar      *float64 `json:"query_pre_attn_scalar"`
	SlidingWindow           *float64 `json:"sliding_window"`
	SlidingWindowPattern    *float64 `json:"sliding_window_pattern"`
	OldSlidingWindowPattern *float64 `json:"_sliding_window_pattern"`
	AttnLogitSoftcapping    *float64 `json:"attn_logit_softcapping"`
	FinalLogitSoftcapping   *float64 `json:"final_logit_softcapping"`
	LayerTypes              []string `json:"layer_types"`
}

// registerGemma registers one Gemma generation.
func registerGemma(arch string, v gemmaVariant) {
	Register(arch, Arch{
		Validate: func(c *Config) error { _, err := newGemma(c, v); return err },
		Tensors:  func(c *Config) map[string][]int { return gemmaTensors(c, v) },
		New:      func(c *Config) (Model, error) { return newGemma(c, v) },
	})
}

// gemma is Gemma's blocks.
type gemma struct {
	cfg      *Config
	v        gemmaVariant
	finalCap float64      // 0: no soft-capping of the logits
	layers   []rotary // rotary embedding per layer
}

// newGemma checks Gemma's keys and resolves scales, caps and each layer's
// window and RoPE.
func newGemma(c *Config, v gemmaVariant) (*decoder, error) {
	var k gemmaKeys
	if err := c.decode(&k); err != nil {
		return nil, err
	}
	if err := checkGemmaKeys(c, &k); err != nil {
		return nil, err
	}
	types, err := c.layerTypes(k.LayerTypes, v.pattern(&k))
	if err != nil {
		return nil, err
	}
	m := &gemma{cfg: c, v: v, finalCap: or(k.FinalLogitSoftcapping, 0)}
	d := newDecoder(c, m, nn.AttentionOptions{Scale: 1 / math.Sqrt(or(k.QueryPreAttnScalar, float64(c.HeadDim))),
		SoftCap: or(k.AttnLogitSoftcapping, 0)})
	for i, lt := range types {
		if lt == "sliding_attention" {
			if d.attn[i].Window = int(or(k.SlidingWindow, 0)); d.attn[i].Window <= 0 {
				return nil, errs.BadInputf("%s: sliding_attention layers need a positive sliding_window", c.Path)
			}
		}
		if !v.ropePerLayerType {
			lt = ""
		}
		r, err := c.ropeLayer(lt)
		if err != nil {
			return nil, err
		}
		m.layers = append(m.layers, r)
	}
	return d, nil
}

// checkGemmaKeys rejects the settings goeval does not implement.
func checkGemmaKeys(c *Config, k *gemmaKeys) error {
	act := or(k.HiddenActivation, or(k.HiddenAct, "gelu_pytorch_tanh"))
	if act != "gelu_pytorch_tanh" && act != "gelu_new" {
		return errs.BadInputf("%s: hidden_activation %q is not supported for %s (only gelu_pytorch_tanh)", c.Path, act, c.Arch())
	}
	if k.AttentionBias {
		return errs.BadInputf("%s: attention_bias true is not supported for %s", c.Path, c.Arch())
	}
	if k.Bidirectional {
		return errs.BadInputf("%s: use_bidirectional_attention is not supported (causal LMs only)", c.Path)
	}
	if q := or(k.QueryPreAttnScalar, float64(c.HeadDim)); !(q > 0) {
		return errs.BadInputf("%s: query_pre_attn_scalar must be > 0 (got %g)", c.Path, q)
	}
	return nil
}

// gemmaTensors lists a Gemma checkpoint's tensors.
func gemmaTensors(c *Config, v gemmaVariant) map[string][]int {
	h, f, hd := c.HiddenSize, c.IntermediateSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	m := outerTensors(c)
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		for _, n := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"} {
			m[p+n+".weight"] = []int{h}
		}
		m[p+"self_attn.q_proj.weight"] = []int{q, h}
		m[p+"self_attn.k_proj.weight"] = []int{kv, h}
		m[p+"self_attn.v_proj.weight"] = []int{kv, h}
		m[p+"self_attn.o_proj.weight"] = []int{h, q}
		m[p+"mlp.gate_proj.weight"] = []int{f, h}
		m[p+"mlp.up_proj.weight"] = []int{f, h}
		m[p+"mlp.down_proj.weight"] = []int{h, f}
		if v.qkNorm {
			m[p+"self_attn.q_norm.weight"] = []int{hd}
			m[p+"self_attn.k_norm.weight"] = []int{hd}
		}
	}
	return m
}

// embed scales the embeddings by √H (HF: a tensor of x's dtype).
func (m *gemma) embed(ctx *context.Context, tokens *Node) *Node {
	return MulScalar(embedTokens(ctx, tokens), float64(float32(math.Sqrt(float64(m.cfg.HiddenSize)))))
}

func (m *gemma) norm(ctx *context.Context, x *Node) *Node {
	return nn.OffsetRMSNorm(x, Param(ctx, x.Graph(), "model.norm.weight"), m.cfg.RMSNormEps)
}

// logits is the (tied) LM head, soft-capped when final_logit_softcapping
// is set.
func (m *gemma) logits(ctx *context.Context, hidden *Node) *Node {
	return nn.SoftCap(linear(ctx, hidden, lmHeadName(m.cfg), nil), m.finalCap)
}

// layer is one Gemma layer with its four norms.
//
//	x [B, T, H] → [B, T, H]
func (m *gemma) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	p, g, c, l := layerPrefix(i), x.Graph(), m.cfg, m.layers[i]
	norm := func(n string, x *Node) *Node { return nn.OffsetRMSNorm(x, Param(ctx, g, p+n+".weight"), c.RMSNormEps) }
	h, a := norm("input_layernorm", x), p+"self_attn."
	q := projectHeads(ctx, h, a+"q_proj", false, c.NumAttentionHeads, c.HeadDim)
	k := projectHeads(ctx, h, a+"k_proj", false, c.NumKeyValueHeads, c.HeadDim)
	v := projectHeads(ctx, h, a+"v_proj", false, c.NumKeyValueHeads, c.HeadDim)
	if m.v.qkNorm {
		q = nn.OffsetRMSNorm(q, Param(ctx, g, a+"q_norm.weight"), c.RMSNormEps)
		k = nn.OffsetRMSNorm(k, Param(ctx, g, a+"k_norm.weight"), c.RMSNormEps)
	}
	q, k = l.apply(q, positions), l.apply(k, positions)
	h = project(ctx, attend(q, k, v), a+"o_proj", false)
	x = Add(x, norm("post_attention_layernorm", h))
	h = gatedMLP(ctx, norm("pre_feedforward_layernorm", x), p+"mlp.", nn.GeGLU)
	return Add(x, norm("post_feedforward_layernorm", h))
}
