package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// ExpectedTensors lists every tensor a Hugging Face checkpoint of c's
// architecture holds, name → shape (HF layout: Linear weights are
// [out, in]). It covers llama, mistral, qwen2 and qwen3.
func ExpectedTensors(c *Config) map[string][]int {
	if spec, ok := archSpecs[c.Arch()]; ok {
		return spec.tensors(c) // phi, phi3, gemma2, gemma3 (arch_hooks.go)
	}
	h, hd := c.HiddenSize, c.HeadDim
	q, kv := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	m := map[string][]int{
		"model.embed_tokens.weight": {c.VocabSize, h},
		"model.norm.weight":         {h},
	}
	if !c.TieWordEmbeddings {
		m["lm_head.weight"] = []int{c.VocabSize, h}
	}
	for i := 0; i < c.NumHiddenLayers; i++ {
		p := fmt.Sprintf("model.layers.%d.", i)
		m[p+"input_layernorm.weight"] = []int{h}
		m[p+"post_attention_layernorm.weight"] = []int{h}
		m[p+"self_attn.q_proj.weight"] = []int{q, h}
		m[p+"self_attn.k_proj.weight"] = []int{kv, h}
		m[p+"self_attn.v_proj.weight"] = []int{kv, h}
		m[p+"self_attn.o_proj.weight"] = []int{h, q}
		if c.AttentionBias {
			m[p+"self_attn.q_proj.bias"] = []int{q}
			m[p+"self_attn.k_proj.bias"] = []int{kv}
			m[p+"self_attn.v_proj.bias"] = []int{kv}
		}
		if c.AttentionOutputBias {
			m[p+"self_attn.o_proj.bias"] = []int{h}
		}
		if c.QKNorm {
			m[p+"self_attn.q_norm.weight"] = []int{hd}
			m[p+"self_attn.k_norm.weight"] = []int{hd}
		}
		m[p+"mlp.gate_proj.weight"] = []int{c.IntermediateSize, h}
		m[p+"mlp.up_proj.weight"] = []int{c.IntermediateSize, h}
		m[p+"mlp.down_proj.weight"] = []int{h, c.IntermediateSize}
	}
	return m
}

// IgnoredTensor reports tensors that checkpoints may carry but no model
// uses: rotary caches some exporters save (transformers ignores them too).
func IgnoredTensor(name string) bool {
	return strings.HasSuffix(name, ".rotary_emb.inv_freq")
}

// CheckTensors verifies that s holds exactly the tensors c implies, with
// the implied shapes. The error names the file, the first problem and how
// many more there are.
func CheckTensors(c *Config, s *safetensors.Set) error {
	problems := TensorProblems(c, s)
	if len(problems) == 0 {
		return nil
	}
	msg := problems[0]
	if len(problems) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(problems)-1)
	}
	return errs.BadInputf("%s", msg)
}

// TensorProblems lists every mismatch between s and ExpectedTensors(c), one
// message per tensor, missing tensors first, in name order.
func TensorProblems(c *Config, s *safetensors.Set) []string {
	want := ExpectedTensors(c)
	var missing, other []string
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		info, ok := s.Info(n)
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s: missing tensor %s", s.Source(), n))
		case !equalShape(info.Shape, want[n]):
			other = append(other, fmt.Sprintf("%s: tensor %s has shape %v, %s implies %v", info.File, n, info.Shape, configName(c), want[n]))
		}
	}
	for _, n := range s.Names() {
		if _, ok := want[n]; !ok && !IgnoredTensor(n) {
			info, _ := s.Info(n)
			other = append(other, fmt.Sprintf("%s: unexpected tensor %s", info.File, n))
		}
	}
	return append(missing, other...)
}

func configName(c *Config) string {
	if c.Path != "" {
		return c.Path
	}
	return ConfigFile
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
