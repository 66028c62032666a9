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
		Tensors:  tensorsOf(func(t tensorTable, c *Config) gemmaNames { return gemmaTensors(t, c, v) }),
		New:      func(c *Config) (Model, error) { return newGemma(c, v) },
	})
}

// gemma is Gemma's blocks.
type gemma struct {
	cfg      *Config
	v        gemmaVariant
	finalCap float64 // 0: no soft-capping of the logits
	ends     endsW
	layers   []gemmaLayer
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
	n := gemmaTensors(tensorTable{}, c, v)
	m := &gemma{cfg: c, v: v, finalCap: or(k.FinalLogitSoftcapping, 0), ends: n.ends, layers: n.layers}
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
		if m.layers[i].rotary, err = c.ropeLayer(lt); err != nil {
			return nil, err
		}
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

// gemmaLayer names one Gemma decoder layer's tensors, with its rotary
// embedding.
type gemmaLayer struct {
	rotary
	inputNorm, postAttnNorm, preFFNorm, postFFNorm string
	q, k, v, o                                     linearW
	qNorm, kNorm                                   string // per-head norms (Gemma 3), or ""
	mlp                                            gatedW
}

// gemmaNames are a Gemma checkpoint's tensor names.
type gemmaNames struct {
	ends   endsW
	layers []gemmaLayer
}

// gemmaTensors declares a Gemma checkpoint's tensors.
func gemmaTensors(t tensorTable, c *Config, v gemmaVariant) gemmaNames {
	h, hd := c.HiddenSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	n := gemmaNames{ends: t.ends(c)}
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		a := p + "self_attn."
		l := gemmaLayer{
			inputNorm:    t.add(p+"input_layernorm.weight", h),
			postAttnNorm: t.add(p+"post_attention_layernorm.weight", h),
			preFFNorm:    t.add(p+"pre_feedforward_layernorm.weight", h),
			postFFNorm:   t.add(p+"post_feedforward_layernorm.weight", h),
			q:            t.linear(a+"q_proj", q, h, false),
			k:            t.linear(a+"k_proj", kv, h, false),
			v:            t.linear(a+"v_proj", kv, h, false),
			o:            t.linear(a+"o_proj", h, q, false),
			mlp:          t.gatedMLP(p+"mlp.", h, c.IntermediateSize),
		}
		if v.qkNorm {
			l.qNorm, l.kNorm = t.add(a+"q_norm.weight", hd), t.add(a+"k_norm.weight", hd)
		}
		n.layers = append(n.layers, l)
	}
	return n
}

// embed scales the embeddings by √H (HF: a tensor of x's dtype).
func (m *gemma) embed(ctx *context.Context, tokens *Node) *Node {
	return MulScalar(embedTokens(ctx, m.ends.embed, tokens), float64(float32(math.Sqrt(float64(m.cfg.HiddenSize)))))
}

func (m *gemma) norm(ctx *context.Context, x *Node) *Node {
	return nn.OffsetRMSNorm(x, Param(ctx, x.Graph(), m.ends.norm), m.cfg.RMSNormEps)
}

// logits is the (tied) LM head, soft-capped when final_logit_softcapping
// is set.
func (m *gemma) logits(ctx *context.Context, hidden *Node) *Node {
	return nn.SoftCap(linear(ctx, hidden, m.ends.head, nil), m.finalCap)
}

// layer is one Gemma layer with its four norms.
//
//	x [B, T, H] → [B, T, H]
func (m *gemma) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	g, c, l := x.Graph(), m.cfg, &m.layers[i]
	norm := func(name string, x *Node) *Node { return nn.OffsetRMSNorm(x, Param(ctx, g, name), c.RMSNormEps) }
	h := norm(l.inputNorm, x)
	q := projectHeads(ctx, h, l.q, c.NumAttentionHeads, c.HeadDim)
	k := projectHeads(ctx, h, l.k, c.NumKeyValueHeads, c.HeadDim)
	v := projectHeads(ctx, h, l.v, c.NumKeyValueHeads, c.HeadDim)
	if l.qNorm != "" {
		q, k = norm(l.qNorm, q), norm(l.kNorm, k)
	}
	q, k = l.apply(ctx, q, positions), l.apply(ctx, k, positions)
	h = project(ctx, attend(q, k, v), l.o)
	x = Add(x, norm(l.postAttnNorm, h))
	h = gatedMLP(ctx, norm(l.preFFNorm, x), l.mlp, nn.GeGLU)
	return Add(x, norm(l.postFFNorm, h))
}
