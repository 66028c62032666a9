package models

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// Sparse mixture-of-experts MLPs, shared by MixtralForCausalLM
// (mixtral.go), Qwen2MoeForCausalLM (qwen2moe.go), Qwen3MoeForCausalLM
// (qwen3moe.go) and OlmoeForCausalLM (olmoe.go), as transformers 5.23
// computes them. A sparse layer's MLP is, for each token h:
//
//	p = softmax(router·h) in float32; the top-k of p (descending);
//	  renormalised to sum 1 when norm_topk_prob (Mixtral: always);
//	  converted to the compute dtype (Mixtral: kept in float32)
//	out = Σ_k p_k · down_e(silu(gate_e·h) ⊙ up_e·h) over the chosen experts e
//	      (+ σ(shared_expert_gate·h) · shared_expert(h), Qwen2-MoE)
//
// Layer i is sparse unless it is in mlp_only_layers or (i+1) is not a
// multiple of decoder_sparse_step (Qwen2-MoE, Qwen3-MoE); a dense layer
// has the llama MLP of intermediate_size. The experts run as nn.MoE:
// grouped products over the tokens routed to each expert (or, for few
// tokens, every expert over all of them), never a loop per token.

// moeKeys are config.json's MoE keys. The expert count is num_experts or
// num_local_experts (transformers' attribute_map accepts both).
type moeKeys struct {
	NumExperts         *float64  `json:"num_experts"`
	NumLocalExperts    *float64  `json:"num_local_experts"`
	NumExpertsPerTok   *float64  `json:"num_experts_per_tok"`
	NormTopKProb       *bool     `json:"norm_topk_prob"`
	MoEIntermediate    *float64  `json:"moe_intermediate_size"`
	SharedIntermediate *float64  `json:"shared_expert_intermediate_size"`
	DecoderSparseStep  *float64  `json:"decoder_sparse_step"`
	MLPOnlyLayers      []float64 `json:"mlp_only_layers"`
}

// MaxExperts bounds the expert count of a config (published models have
// at most a few hundred), so a corrupt config.json fails instead of
// declaring billions of tensors.
const MaxExperts = 4096

// moeArch is an architecture's MoE layout and its transformers defaults.
type moeArch struct {
	experts, topK int  // num_experts, num_experts_per_tok
	normTopK      bool // norm_topk_prob (alwaysNorm: not a key)
	alwaysNorm    bool // Mixtral renormalises unconditionally
	f32Weights    bool // Mixtral keeps the routing weights in float32
	// moeFFN is moe_intermediate_size's default; 0: experts have
	// intermediate_size (Mixtral, OLMoE).
	moeFFN int
	shared int  // shared_expert_intermediate_size's default; 0: none
	steps  bool // decoder_sparse_step and mlp_only_layers apply
	// block is the MoE block's prefix in a layer ("mlp." or Mixtral's
	// "block_sparse_moe."), proj its experts' gate, up and down names.
	block string
	proj  [3]string
}

// qwenProj are the expert projection names of the Qwen and OLMoE MoEs.
var qwenProj = [3]string{"gate_proj", "up_proj", "down_proj"}

// moeSpec is a config's resolved MoE layers.
type moeSpec struct {
	moeArch
	ffn    int    // an expert's intermediate size
	sparse []bool // per layer: a MoE block, else a dense MLP
}

// moeSpec reads c's MoE keys with a's defaults and checks them; errors
// are bad input naming config.json and the key.
func (c *Config) moeSpec(a moeArch) (*moeSpec, error) {
	var k moeKeys
	if err := c.decode(&k); err != nil {
		return nil, err
	}
	s := &moeSpec{moeArch: a, ffn: c.IntermediateSize}
	s.experts = int(or(k.NumExperts, or(k.NumLocalExperts, float64(a.experts))))
	s.topK = int(or(k.NumExpertsPerTok, float64(a.topK)))
	s.normTopK = a.alwaysNorm || or(k.NormTopKProb, a.normTopK)
	if a.moeFFN > 0 {
		s.ffn = int(or(k.MoEIntermediate, float64(a.moeFFN)))
	}
	if a.shared > 0 {
		s.shared = int(or(k.SharedIntermediate, float64(a.shared)))
	}
	step := 1
	if a.steps {
		step = int(or(k.DecoderSparseStep, 1))
	}
	switch {
	case s.experts < 1 || s.experts > MaxExperts:
		return nil, errs.BadInputf("%s: num_experts (%d) must be in [1, %d]", c.Path, s.experts, MaxExperts)
	case s.topK < 1 || s.topK > s.experts:
		return nil, errs.BadInputf("%s: num_experts_per_tok (%d) must be in [1, num_experts = %d]", c.Path, s.topK, s.experts)
	case s.ffn < 1 || (a.shared > 0 && s.shared < 1):
		return nil, errs.BadInputf("%s: the experts' intermediate sizes must be positive (got %d, shared %d)", c.Path, s.ffn, s.shared)
	case step < 1:
		return nil, errs.BadInputf("%s: decoder_sparse_step must be positive (got %d)", c.Path, step)
	}
	only := map[int]bool{}
	for _, l := range k.MLPOnlyLayers {
		if !a.steps {
			break
		}
		only[int(l)] = true
	}
	s.sparse = make([]bool, c.NumHiddenLayers)
	for i := range s.sparse {
		s.sparse[i] = !only[i] && (i+1)%step == 0
	}
	return s, nil
}

// moeW names one MoE block's tensors.
type moeW struct {
	router     string   // gate.weight [E, H]
	experts    []gatedW // gate, up [F, H]; down [H, F]
	shared     gatedW   // Qwen2-MoE's shared expert, zero without
	sharedGate string   // shared_expert_gate.weight [1, H], "" without
}

// moeBlock declares the MoE block of layer i (prefix its layer's).
func (t tensorTable) moeBlock(prefix string, c *Config, s *moeSpec) moeW {
	h, p := c.HiddenSize, prefix+s.block
	w := moeW{router: t.add(p+"gate.weight", s.experts, h)}
	for e := range s.experts {
		ep := fmt.Sprintf("%sexperts.%d.", p, e)
		w.experts = append(w.experts, gatedW{gate: t.linear(ep+s.proj[0], s.ffn, h, false),
			up: t.linear(ep+s.proj[1], s.ffn, h, false), down: t.linear(ep+s.proj[2], h, s.ffn, false)})
	}
	if s.shared > 0 {
		w.shared = t.gatedMLP(p+"shared_expert.", h, s.shared)
		w.sharedGate = t.add(p+"shared_expert_gate.weight", 1, h)
	}
	return w
}

// route is the router of block w: each token's top-k experts and their
// weights (renormalised, in the compute dtype, per s).
//
//	x [N, H] → experts [N, K] int32, weights [N, K]
func (s *moeSpec) route(ctx *context.Context, x *Node, w *moeW) (experts, weights *Node) {
	logits := linear(ctx, x, w.router, nil)                    // [N, E]
	probs := Softmax(ConvertDType(logits, dtypes.Float32), -1) // float32, as transformers
	weights, experts = nn.TopK(probs, s.topK)
	if s.normTopK {
		weights = Div(weights, ReduceAndKeep(weights, ReduceSum, -1))
	}
	if !s.f32Weights {
		weights = ConvertDType(weights, x.DType())
	}
	return experts, weights
}

// moeMLP is block w on the normed hidden states; seen, if not nil,
// receives the chosen experts [B·T, K] (tests compare them with
// transformers' router).
//
//	h [B, T, H] → [B, T, H]
func (s *moeSpec) moeMLP(ctx *context.Context, h *Node, w *moeW, seen func(experts *Node)) *Node {
	b, t, hd := h.Shape().Dim(0), h.Shape().Dim(1), h.Shape().Dim(2)
	x := Reshape(h, b*t, hd)
	experts, weights := s.route(ctx, x, w)
	if seen != nil {
		seen(experts)
	}
	m := nn.MoE{Experts: s.experts, Unit: nn.SwiGLU,
		Expert: func(e int, rows *Node) *Node { return gatedMLP(ctx, rows, w.experts[e], nn.SwiGLU) }}
	if !w.adapted(ctx, x.Graph()) {
		m.Stacked = func() (gate, up, down *Node) { return w.stacked(ctx, x.Graph()) }
	}
	out := m.Apply(x, experts, weights)
	if w.sharedGate != "" {
		gate := Logistic(linear(ctx, x, w.sharedGate, nil)) // [N, 1]
		out = Add(out, Mul(BroadcastToDims(gate, b*t, hd), gatedMLP(ctx, x, w.shared, nn.SwiGLU)))
	}
	return Reshape(out, b, t, hd)
}

// stacked is the experts' weights stacked for nn.MoE's grouped layout:
// gate, up [E, F, H] and down [E, H, F], read through Param (so in the
// checkpoint's layout whatever the backend stores).
func (w *moeW) stacked(ctx *context.Context, g *Graph) (gate, up, down *Node) {
	gs, us, ds := make([]*Node, len(w.experts)), make([]*Node, len(w.experts)), make([]*Node, len(w.experts))
	for e, x := range w.experts {
		gs[e], us[e], ds[e] = Param(ctx, g, x.gate.weight), Param(ctx, g, x.up.weight), Param(ctx, g, x.down.weight)
	}
	return Stack(gs, 0), Stack(us, 0), Stack(ds, 0)
}

// adapted reports whether a separate-mode LoRA adapter changes an
// expert's projection: then only nn.MoE's direct layout, whose products
// go through linear, applies it.
func (w *moeW) adapted(ctx *context.Context, g *Graph) bool {
	for _, x := range w.experts {
		for _, name := range []string{x.gate.weight, x.up.weight, x.down.weight} {
			if adapterVar(ctx, g, name, "A") != nil {
				return true
			}
		}
	}
	return false
}
