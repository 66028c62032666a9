package synth

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
)

// Synth support for phi, phi3, gemma2 and gemma3: the names Model knows and
// the config.json keys transformers writes for each (synth.go calls
// synthConfigHooks after the common keys). Tensors come from
// ExpectedTensors, so every synthesized checkpoint loads in transformers
// without missing or unexpected keys (checked by
// parity/archs/arch_golden.py --synth).

func init() {
	synthArchs["phi"] = [2]string{"PhiForCausalLM", "phi"}
	synthArchs["phi3"] = [2]string{"Phi3ForCausalLM", "phi3"}
	synthArchs["gemma2"] = [2]string{"Gemma2ForCausalLM", "gemma2"}
	synthArchs["gemma3"] = [2]string{"Gemma3ForCausalLM", "gemma3_text"}
	synthConfigHooks["phi"] = synthPhiConfig
	synthConfigHooks["phi3"] = synthPhi3Config
	synthConfigHooks["gemma2"] = synthGemmaConfig
	synthConfigHooks["gemma3"] = synthGemmaConfig
}

// f64 renders a float that transformers' strict configs need written with
// a decimal point (encoding/json writes 30.0 as 30, an int).
func jsonFloat(v float64) json.RawMessage {
	return json.RawMessage(strconv.FormatFloat(v, 'f', -1, 64) + ".0")
}

// synthConfigHooks adjust config.json for architectures outside the llama
// family.
var synthConfigHooks = map[string]func(o *ModelOptions, m map[string]any){}

// synthPhiConfig: Phi-2's LayerNorm eps, gelu_new and partial rotary 0.5.
func synthPhiConfig(o *ModelOptions, m map[string]any) {
	delete(m, "rms_norm_eps")
	m["hidden_act"], m["layer_norm_eps"], m["partial_rotary_factor"] = "gelu_new", o.RMSNormEps, 0.5
	m["qk_layernorm"], m["resid_pdrop"], m["embd_pdrop"] = false, jsonFloat(0), jsonFloat(0)
}

// synthPhi3Config: no sliding window unless asked; LongRoPE (Phi-3.5's
// rope_scaling) when o.RopeScaling is "longrope".
func synthPhi3Config(o *ModelOptions, m map[string]any) {
	m["sliding_window"] = nil
	if o.SlidingWindow > 0 {
		m["sliding_window"] = o.SlidingWindow
	}
	m["original_max_position_embeddings"], m["resid_pdrop"], m["embd_pdrop"] = o.MaxPositions, jsonFloat(0), jsonFloat(0)
	m["pad_token_id"] = o.EOS // Phi3Config defaults to 32000, past a small vocabulary
	if r := o.RopeScaling; r != nil && r.Type == "longrope" {
		short, long := longRopeFactors(o)
		m["original_max_position_embeddings"] = r.OriginalMaxPositionEmbeddings
		m["rope_scaling"] = map[string]any{"type": "longrope", "short_factor": short, "long_factor": long}
	}
}

// longRopeFactors are LongRoPE's per-frequency factors (head_dim/2 each)
// for o, seeded: short ones near 1, long ones rising from 1 to about
// max_position_embeddings / original_max_position_embeddings, as
// Phi-3.5's do.
func longRopeFactors(o *ModelOptions) (short, long []float64) {
	n := o.HeadDim / 2
	rng := rand.New(rand.NewPCG(o.Seed, 0x10e6))
	ratio := float64(o.MaxPositions) / float64(o.RopeScaling.OriginalMaxPositionEmbeddings)
	for i := range n {
		short = append(short, 1+0.1*rng.Float64())
		long = append(long, 1+(ratio-1)*float64(i)/float64(max(n-1, 1))+0.1*rng.Float64())
	}
	return short, long
}

// synthGemmaConfig: Gemma's activation, query scale, soft-caps (Gemma 2's
// defaults), sliding window (default 4096) and Gemma 3's local RoPE base
// and layer pattern (every 6th layer global).
func synthGemmaConfig(o *ModelOptions, m map[string]any) {
	delete(m, "hidden_act")
	window := 4096
	if o.SlidingWindow > 0 {
		window = o.SlidingWindow
	}
	m["hidden_activation"], m["query_pre_attn_scalar"], m["sliding_window"] = "gelu_pytorch_tanh", o.HeadDim, window
	m["attention_bias"] = false
	if o.Arch == "gemma2" {
		m["attn_logit_softcapping"], m["final_logit_softcapping"] = jsonFloat(50), jsonFloat(30)
		return
	}
	m["rope_local_base_freq"], m["sliding_window_pattern"] = jsonFloat(10000), 6
	m["attn_logit_softcapping"], m["final_logit_softcapping"] = nil, nil
}
