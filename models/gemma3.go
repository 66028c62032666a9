package models

// Gemma3ForCausalLM (text-only Gemma 3, model_type gemma3_text) is the Gemma
// decoder of gemma2.go with per-head q/k norms ((1+w) RMSNorm over
// head_dim, before RoPE), a RoPE base per layer type (rope_local_base_freq
// or rope_parameters.sliding_attention for sliding layers, rope_theta and
// rope_scaling for global ones) and, without layer_types, one global layer
// every sliding_window_pattern layers (default 6).
func init() {
	registerGemma("Gemma3ForCausalLM", gemmaVariant{qkNorm: true, ropePerLayerType: true,
		pattern: func(k *gemmaKeys) int { return int(or(k.SlidingWindowPattern, or(k.OldSlidingWindowPattern, 6))) }})
}
