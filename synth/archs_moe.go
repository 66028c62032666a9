package synth

import (
	"sort"

	"github.com/goeval/goeval/internal/errs"
)

// Synth support for the mixture-of-experts architectures: qwen2moe
// (Qwen2MoeForCausalLM), qwen3moe (Qwen3MoeForCausalLM), mixtral
// (MixtralForCausalLM) and olmoe (OlmoeForCausalLM), with the config.json
// keys transformers writes for each. Their expert tensors come from
// ExpectedTensors like every other tensor, so the checkpoints load in
// transformers strictly (parity/archs/arch_golden.py --synth).

func init() {
	synthArchs["qwen2moe"] = [2]string{"Qwen2MoeForCausalLM", "qwen2_moe"}
	synthArchs["qwen3moe"] = [2]string{"Qwen3MoeForCausalLM", "qwen3_moe"}
	synthArchs["mixtral"] = [2]string{"MixtralForCausalLM", "mixtral"}
	synthArchs["olmoe"] = [2]string{"OlmoeForCausalLM", "olmoe"}
	for _, a := range []string{"qwen2moe", "qwen3moe", "mixtral", "olmoe"} {
		synthConfigHooks[a] = synthMoEConfig
	}
}

// Archs lists the architectures Model writes, sorted.
func Archs() []string {
	out := make([]string, 0, len(synthArchs))
	for a := range synthArchs {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// MoEOptions shape a mixture-of-experts checkpoint. Zero values mean: 4
// experts, 2 per token; experts of Intermediate/2 (the Qwen MoEs'
// moe_intermediate_size; Mixtral's and OLMoE's experts have Intermediate);
// a Qwen2-MoE shared expert of Intermediate; decoder_sparse_step 1.
type MoEOptions struct {
	Experts, PerToken int
	// ExpertIntermediate is moe_intermediate_size (Qwen MoEs only),
	// SharedIntermediate Qwen2-MoE's shared_expert_intermediate_size.
	ExpertIntermediate, SharedIntermediate int
	// NormTopK is norm_topk_prob (not Mixtral's: it always renormalises).
	NormTopK bool
	// SparseStep is decoder_sparse_step and DenseLayers mlp_only_layers
	// (Qwen MoEs only).
	SparseStep  int
	DenseLayers []int
}

// moeArchs are the mixture-of-experts architectures.
var moeArchs = map[string]bool{"qwen2moe": true, "qwen3moe": true, "mixtral": true, "olmoe": true}

// resolve fills m's defaults for o and checks them.
func (m *MoEOptions) resolve(o *ModelOptions) error {
	if !moeArchs[o.Arch] {
		return nil
	}
	if o.Arch == "olmoe" && o.SlidingWindow > 0 {
		return errs.BadInputf("--sliding-window: OLMoE has none")
	}
	if m.Experts == 0 {
		m.Experts = 4
	}
	if m.PerToken == 0 {
		m.PerToken = min(2, m.Experts)
	}
	if m.ExpertIntermediate == 0 {
		m.ExpertIntermediate = max(1, o.Intermediate/2)
	}
	if m.SharedIntermediate == 0 {
		m.SharedIntermediate = o.Intermediate
	}
	if m.SparseStep == 0 {
		m.SparseStep = 1
	}
	if m.Experts < 1 || m.PerToken < 1 || m.PerToken > m.Experts || m.ExpertIntermediate < 1 || m.SharedIntermediate < 1 || m.SparseStep < 1 {
		return errs.BadInputf("--experts %d, --experts-per-token %d (at most --experts), --expert-intermediate %d, --shared-intermediate %d and --sparse-step %d must be positive",
			m.Experts, m.PerToken, m.ExpertIntermediate, m.SharedIntermediate, m.SparseStep)
	}
	return nil
}

// synthMoEConfig writes the MoE keys of o.Arch, and its window.
func synthMoEConfig(o *ModelOptions, m map[string]any) {
	e := &o.MoE
	m["num_experts_per_tok"], m["output_router_logits"] = e.PerToken, false
	m["router_aux_loss_coef"] = 0.001
	dense := e.DenseLayers
	if dense == nil {
		dense = []int{}
	}
	switch o.Arch {
	case "mixtral":
		m["num_local_experts"], m["router_jitter_noise"] = e.Experts, jsonFloat(0)
		m["sliding_window"] = nil
		if o.SlidingWindow > 0 {
			m["sliding_window"] = o.SlidingWindow
		}
		return
	case "olmoe":
		m["num_experts"], m["norm_topk_prob"], m["clip_qkv"], m["attention_bias"] = e.Experts, e.NormTopK, nil, false
		m["pad_token_id"] = o.EOS // OlmoeConfig defaults to 1
		return
	}
	m["num_experts"], m["norm_topk_prob"], m["moe_intermediate_size"] = e.Experts, e.NormTopK, e.ExpertIntermediate
	m["decoder_sparse_step"], m["mlp_only_layers"] = e.SparseStep, dense
	m["use_sliding_window"], m["sliding_window"] = o.SlidingWindow > 0, nil
	if o.SlidingWindow > 0 {
		m["sliding_window"] = o.SlidingWindow
	}
	if o.Arch == "qwen2moe" {
		m["shared_expert_intermediate_size"], m["qkv_bias"], m["max_window_layers"] = e.SharedIntermediate, true, o.Layers
		return
	}
	m["attention_bias"] = false
}
