package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// moeNames are a MoE checkpoint's tensor names: llama's ends and
// attention, each layer's MLP dense (llama's) or a MoE block.
type moeNames struct {
	ends   endsW
	layers []llamaLayer // mlp set on dense layers only
	moe    []moeW       // router "" on dense layers
}

// moeTensors declares a MoE checkpoint with llama attention (llamaAttention:
// biases and q/k norms from c) and s's MLPs.
func moeTensors(t tensorTable, c *Config, s *moeSpec) moeNames {
	n := moeNames{ends: t.ends(c), moe: make([]moeW, c.NumHiddenLayers)}
	for i := range c.NumHiddenLayers {
		l := llamaAttention(t, c, i)
		if s.sparse[i] {
			n.moe[i] = t.moeBlock(layerPrefix(i), c, s)
		} else {
			l.mlp = t.gatedMLP(layerPrefix(i)+"mlp.", c.HiddenSize, c.IntermediateSize)
		}
		n.layers = append(n.layers, l)
	}
	return n
}

// moeTensorsOf is Arch.Tensors for a MoE architecture whose spec is
// spec(c) (a config that fails it declares nothing: Validate refuses it
// first).
func moeTensorsOf(spec func(c *Config) (*moeSpec, error)) func(c *Config) map[string][]int {
	return tensorsOf(func(t tensorTable, c *Config) moeNames {
		s, err := spec(c)
		if err != nil {
			return moeNames{}
		}
		return moeTensors(t, c, s)
	})
}

// moeLlama is the blocks of the MoE decoders with llama attention
// (Mixtral, Qwen2-MoE, Qwen3-MoE; OLMoE's attention is its own): llama's
// layer with each layer's MLP dense or sparse.
type moeLlama struct {
	*llama
	moe  []moeW
	spec *moeSpec
	// seen, if not nil, receives each sparse layer's chosen experts
	// [B·T, K] as the graph is built (tests).
	seen func(layer int, experts *Node)
}

// newMoELlama builds the blocks of c with spec s.
func newMoELlama(c *Config, s *moeSpec) (*moeLlama, error) {
	rope, err := c.ropeLayer("")
	if err != nil {
		return nil, err
	}
	n := moeTensors(tensorTable{}, c, s)
	return &moeLlama{llama: &llama{rmsEnds: rmsEnds{c, n.ends}, layers: n.layers, rope: rope}, moe: n.moe, spec: s}, nil
}

// layer is x + attn(norm(x)), then x + mlp(norm(x)).
//
//	x [B, T, H], positions [B, T] → [B, T, H]
func (m *moeLlama) layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node {
	l, g, eps := &m.layers[i], x.Graph(), m.cfg.RMSNormEps
	h := nn.RMSNorm(x, Param(ctx, g, l.inputNorm), eps)
	q, k, v := m.qkv(ctx, l, h, positions)
	x = Add(x, project(ctx, attend(q, k, v), l.o))
	return Add(x, m.mlp(ctx, i, nn.RMSNorm(x, Param(ctx, g, l.postNorm), eps)))
}

// mlp is layer i's MLP on the normed hidden states: the MoE block, or
// llama's gated MLP on a dense layer.
//
//	h [B, T, H] → [B, T, H]
func (m *moeLlama) mlp(ctx *context.Context, i int, h *Node) *Node {
	if !m.spec.sparse[i] {
		return gatedMLP(ctx, h, m.layers[i].mlp, nn.SwiGLU)
	}
	var seen func(*Node)
	if m.seen != nil {
		seen = func(e *Node) { m.seen(i, e) }
	}
	return m.spec.moeMLP(ctx, h, &m.moe[i], seen)
}

// windows sets the sliding window of the layers for which on(i) holds.
func windows(d *decoder, window int, on func(i int) bool) {
	for i := range d.attn {
		if window > 0 && on(i) {
			d.attn[i].Window = window
		}
	}
}

// validateMoE checks what the MoE decoders support: silu experts and a
// non-negative window.
func validateMoE(c *Config) error {
	if c.HiddenAct != "silu" && c.HiddenAct != "swish" {
		return errs.BadInputf("%s: hidden_act %q is not supported for %s (only silu)", c.Path, c.HiddenAct, c.Arch())
	}
	if c.SlidingWindow < 0 {
		return errs.BadInputf("%s: sliding_window must not be negative (got %d)", c.Path, c.SlidingWindow)
	}
	return nil
}
