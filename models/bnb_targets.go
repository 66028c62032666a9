package models

import (
	"regexp"
	"strings"
)

// bnbLoadTargets lists the weights transformers 5.23 quantizes when it
// loads a float checkpoint with load_in_4bit (replace_with_bnb_linear):
// the weight of every module that is exactly an nn.Linear, less the
// modules not to convert (get_modules_to_not_convert): without
// llm_int8_skip_modules (skip nil) get_keys_to_not_convert's (the output
// embedding lm_head, tied weights, the model's last parameter); with it,
// only the modules it names — so the LM head is quantized too unless it
// names lm_head (bnbHeadQuantized). In goeval's architectures that is
// every rank-2 weight under model.layers., and lm_head.weight where the
// head is quantized, except:
//
//   - MoE experts (…experts.N.…): transformers 5 fuses them into 3-D
//     parameters of an Experts module, not Linear layers;
//   - MoE routers (…mlp.gate, …block_sparse_moe.gate): TopKRouter modules
//     holding a bare parameter.
//
// The embedding is outside model.layers.; a head tied to it has no
// lm_head.weight (openLoadIn4Bit and openLoadIn8Bit refuse to quantize
// it). Qwen2-MoE's
// shared_expert_gate is a Linear and is quantized. names is the
// checkpoint's tensors; info reports a tensor's rank.
func bnbLoadTargets(names []string, rank func(string) int, skip []string) []string {
	var out []string
	for _, n := range names {
		if n == bnbHeadWeight && rank(n) == 2 && bnbHeadQuantized(skip) {
			out = append(out, n)
			continue
		}
		module, ok := strings.CutSuffix(n, ".weight")
		if !ok || !strings.HasPrefix(n, "model.layers.") || rank(n) != 2 {
			continue
		}
		if strings.Contains(n, ".experts.") || isRouter(module) || skipModule(module, skip) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// bnbHeadWeight is the LM head's weight where it is not tied.
const bnbHeadWeight = "lm_head.weight"

// bnbHeadQuantized reports whether load_in_4bit or load_in_8bit with
// llm_int8_skip_modules skip quantizes the LM head as transformers 5.23
// does: a given list replaces get_keys_to_not_convert's defaults, so the
// head is quantized unless the list names lm_head (tied or not).
func bnbHeadQuantized(skip []string) bool {
	return skip != nil && !skipModule("lm_head", skip)
}

// isRouter reports whether module is an MoE router (a TopKRouter in
// transformers 5, not a Linear).
func isRouter(module string) bool {
	return strings.HasSuffix(module, ".mlp.gate") || strings.HasSuffix(module, ".block_sparse_moe.gate")
}

// skipModule reports whether one of transformers' skip patterns matches
// module (should_convert_module): as a regular expression from the start,
// ending at a module boundary, or as a suffix.
func skipModule(module string, patterns []string) bool {
	for _, p := range patterns {
		if strings.HasSuffix(module, p) {
			return true
		}
		boundary := `(?:\.|$)`
		if strings.HasSuffix(p, ".") { // Python's lookbehind: the pattern ends at a boundary
			boundary = ""
		}
		re, err := regexp.Compile(`^(?:` + p + `)` + boundary)
		if err == nil && re.MatchString(module) {
			return true
		}
	}
	return false
}
