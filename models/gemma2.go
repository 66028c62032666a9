package models

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
)

// Gemma is the decoder of Gemma2ForCausalLM and Gemma3ForCausalLM (text):
//
//	x = embed(tokens) · √H
//	per layer: x += post_attn_norm(attn(input_norm(x)))
//	           x += post_ff_norm(mlp(pre_ff_norm(x)))      mlp = down(gelu_tanh(gate) ⊙ up)
//	logits = softcap_final(lm_head(norm(x)))
//
// Norms are (1+w)·x/rms(x) in float32. Scores are q·kᵀ/√query_pre_attn_scalar,
// soft-capped when attn_logit_softcapping is set; sliding_attention layers
// see only the last sliding_window keys. Gemma 3 adds per-head q/k norms
// before RoPE and a separate RoPE base (and scaling) for sliding and global
// layers (gemma3.go).
type Gemma struct {
	cfg                 *Config
	heads, kvHeads, dim int
	scale               float64 // query_pre_attn_scalar^-0.5
	attnCap, finalCap   float64 // 0: no soft-capping
	qkNorm              bool    // Gemma 3
	layers              []gemmaLayer
}

// gemmaLayer is the attention kind of one layer.
type gemmaLayer struct {
	window  int // 0: global attention
	invFreq []float64
	rot     int
}

func init() {
	registerArch("Gemma2ForCausalLM", func(c *Config) (Model, error) { return newGemma(c, false) },
		archSpec{validate: func(c *Config) error { return validateGemma(c, false) }, tensors: gemmaTensors(false)})
}

// gemmaPattern is the sliding-window pattern used when config.json has no
// layer_types: Gemma 2 alternates (sliding first), Gemma 3 puts a global
// layer every sliding_window_pattern layers (default 6).
func gemmaPattern(c *Config, gemma3 bool) int {
	if !gemma3 {
		return 2
	}
	return int(c.rawFloat("sliding_window_pattern", c.rawFloat("_sliding_window_pattern", 6)))
}

// validateGemma checks the Gemma-specific config.json fields.
func validateGemma(c *Config, gemma3 bool) error {
	act := c.rawString("hidden_activation", c.rawString("hidden_act", "gelu_pytorch_tanh"))
	if act != "gelu_pytorch_tanh" && act != "gelu_new" {
		return errs.BadInputf("%s: hidden_activation %q is not supported for %s (only gelu_pytorch_tanh)", c.Path, act, c.Arch())
	}
	if c.rawBool("attention_bias") {
		return errs.BadInputf("%s: attention_bias true is not supported for %s", c.Path, c.Arch())
	}
	if c.rawBool("use_bidirectional_attention") {
		return errs.BadInputf("%s: use_bidirectional_attention is not supported (causal LMs only)", c.Path)
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return errs.BadInputf("%s: num_attention_heads must be a multiple of num_key_value_heads", c.Path)
	}
	if q := c.rawFloat("query_pre_attn_scalar", float64(c.HeadDim)); !(q > 0) {
		return errs.BadInputf("%s: query_pre_attn_scalar must be > 0 (got %g)", c.Path, q)
	}
	types, err := c.layerTypes(gemmaPattern(c, gemma3))
	if err != nil {
		return err
	}
	for _, lt := range types {
		if lt == "sliding_attention" && c.rawFloat("sliding_window", 0) <= 0 {
			return errs.BadInputf("%s: sliding_attention layers need a positive sliding_window", c.Path)
		}
		r, err := c.ropeFor(ropeLayerType(lt, gemma3))
		if err == nil {
			_, _, err = r.invFreq(c.HeadDim)
		}
		if err != nil {
			return errs.BadInputf("%s: %v", c.Path, err)
		}
	}
	return nil
}

// ropeLayerType is the key ropeFor uses: Gemma 3 has per-layer-type RoPE.
func ropeLayerType(lt string, gemma3 bool) string {
	if gemma3 {
		return lt
	}
	return ""
}

// gemmaTensors lists a Gemma 2 or Gemma 3 checkpoint's tensors.
func gemmaTensors(gemma3 bool) func(c *Config) map[string][]int {
	return func(c *Config) map[string][]int {
		h, f, hd := c.HiddenSize, c.IntermediateSize, c.HeadDim
		q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
		m := map[string][]int{"model.embed_tokens.weight": {c.VocabSize, h}, "model.norm.weight": {h}}
		if !c.TieWordEmbeddings {
			m["lm_head.weight"] = []int{c.VocabSize, h}
		}
		for i := range c.NumHiddenLayers {
			p := fmt.Sprintf("model.layers.%d.", i)
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
			if gemma3 {
				m[p+"self_attn.q_norm.weight"] = []int{hd}
				m[p+"self_attn.k_norm.weight"] = []int{hd}
			}
		}
		return m
	}
}

// newGemma resolves scales, caps and each layer's window and RoPE.
func newGemma(cfg *Config, gemma3 bool) (Model, error) {
	m := &Gemma{cfg: cfg, heads: cfg.NumAttentionHeads, kvHeads: cfg.NumKeyValueHeads, dim: cfg.HeadDim,
		scale:   1 / math.Sqrt(cfg.rawFloat("query_pre_attn_scalar", float64(cfg.HeadDim))),
		attnCap: cfg.rawFloat("attn_logit_softcapping", 0), finalCap: cfg.rawFloat("final_logit_softcapping", 0),
		qkNorm: gemma3}
	types, err := cfg.layerTypes(gemmaPattern(cfg, gemma3))
	if err != nil {
		return nil, err
	}
	for _, lt := range types {
		var l gemmaLayer
		if lt == "sliding_attention" {
			l.window = int(cfg.rawFloat("sliding_window", 0))
		}
		r, err := cfg.ropeFor(ropeLayerType(lt, gemma3))
		if err != nil {
			return nil, err
		}
		if l.invFreq, l.rot, err = r.invFreq(m.dim); err != nil {
			return nil, errs.BadInputf("%s: %v", cfg.Path, err)
		}
		m.layers = append(m.layers, l)
	}
	return m, nil
}

// Config implements Model.
func (m *Gemma) Config() *Config { return m.cfg }

// Hidden implements Model.
//
//	tokens [B, T] → [B, T, H]
func (m *Gemma) Hidden(ctx *context.Context, tokens, positions, keyValid *Node) *Node {
	return hiddenWith(m, ctx, tokens, positions, keyValid)
}

// CacheDims implements CachedModel.
func (m *Gemma) CacheDims() (layers, kvHeads, headDim int) { return len(m.layers), m.kvHeads, m.dim }

// Prefill implements CachedModel.
func (m *Gemma) Prefill(ctx *context.Context, tokens *Node) (*Node, []KV) {
	return prefillWith(m, ctx, tokens)
}

// Decode implements CachedModel.
func (m *Gemma) Decode(ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	return decodeWith(m, ctx, tokens, positions, cache)
}

// forward implements hookedDecoder.
func (m *Gemma) forward(ctx *context.Context, tokens, positions *Node, maskFor func(int) *Node, hook func(int) kvHook) *Node {
	g := tokens.Graph()
	eps := m.cfg.RMSNormEps
	x := embed(ctx, tokens, "model.embed_tokens.weight")
	x = MulScalar(x, float64(float32(math.Sqrt(float64(m.cfg.HiddenSize))))) // HF: a tensor of x's dtype
	for i, l := range m.layers {
		p := fmt.Sprintf("model.layers.%d.", i)
		norm := func(n string, x *Node) *Node { return gemmaRMSNorm(x, Param(ctx, g, p+n+".weight"), eps) }
		h := m.attention(ctx, p+"self_attn.", l, norm("input_layernorm", x), positions, maskFor(l.window), hook(i))
		x = Add(x, norm("post_attention_layernorm", h))
		h = norm("pre_feedforward_layernorm", x)
		gate := Linear(ctx, h, p+"mlp.gate_proj.weight", nil)
		up := Linear(ctx, h, p+"mlp.up_proj.weight", nil)
		h = Linear(ctx, Mul(geluTanh(gate), up), p+"mlp.down_proj.weight", nil)
		x = Add(x, norm("post_feedforward_layernorm", h))
	}
	return gemmaRMSNorm(x, Param(ctx, g, "model.norm.weight"), eps)
}

// attention is one Gemma self-attention block.
//
//	h [B, T, H] → [B, T, H]
func (m *Gemma) attention(ctx *context.Context, p string, l gemmaLayer, h, positions, mask *Node, hook kvHook) *Node {
	g := h.Graph()
	b, t := h.Shape().Dim(0), h.Shape().Dim(1)
	proj := func(name string, heads int) *Node {
		return Reshape(Linear(ctx, h, p+name+".weight", nil), b, t, heads, m.dim)
	}
	q, k, v := proj("q_proj", m.heads), proj("k_proj", m.kvHeads), proj("v_proj", m.kvHeads)
	if m.qkNorm {
		q = gemmaRMSNorm(q, Param(ctx, g, p+"q_norm.weight"), m.cfg.RMSNormEps)
		k = gemmaRMSNorm(k, Param(ctx, g, p+"k_norm.weight"), m.cfg.RMSNormEps)
	}
	q, k = partialRoPE(q, positions, l.invFreq, l.rot), partialRoPE(k, positions, l.invFreq, l.rot)
	k, v = applyHook(hook, k, v)
	return Linear(ctx, attention(q, k, v, mask, m.scale, m.attnCap), p+"o_proj.weight", nil)
}

// Logits implements Model: the (tied) LM head, soft-capped when
// final_logit_softcapping is set (in float32).
func (m *Gemma) Logits(ctx *context.Context, hidden *Node) *Node {
	name := "lm_head.weight"
	if m.cfg.TieWordEmbeddings {
		name = "model.embed_tokens.weight"
	}
	return softcap(Linear(ctx, hidden, name, nil), m.finalCap)
}
