package synth

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/models"
)

// TestSynthMoEOptions: MoEOptions reach config.json under each
// architecture's own keys, and the checkpoint's tensors follow them
// (experts per sparse layer, dense layers from decoder_sparse_step and
// mlp_only_layers, Qwen2-MoE's shared expert, Mixtral's names).
func TestSynthMoEOptions(t *testing.T) {
	for _, c := range []struct {
		arch    string
		moe     MoEOptions
		keys    map[string]any
		present []string
		absent  []string
	}{
		{"qwen3moe", MoEOptions{Experts: 6, PerToken: 3, NormTopK: true, SparseStep: 2},
			map[string]any{"num_experts": 6.0, "num_experts_per_tok": 3.0, "norm_topk_prob": true, "decoder_sparse_step": 2.0, "moe_intermediate_size": 24.0},
			[]string{"model.layers.1.mlp.experts.5.down_proj.weight", "model.layers.0.mlp.gate_proj.weight", "model.layers.0.self_attn.q_norm.weight"},
			[]string{"model.layers.0.mlp.gate.weight", "model.layers.1.mlp.experts.6.up_proj.weight"}},
		{"qwen2moe", MoEOptions{DenseLayers: []int{1}},
			map[string]any{"num_experts": 4.0, "shared_expert_intermediate_size": 48.0, "mlp_only_layers": []any{1.0}, "qkv_bias": true},
			[]string{"model.layers.0.mlp.shared_expert_gate.weight", "model.layers.0.mlp.shared_expert.up_proj.weight", "model.layers.1.mlp.up_proj.weight", "model.layers.0.self_attn.q_proj.bias"},
			[]string{"model.layers.1.mlp.gate.weight"}},
		{"mixtral", MoEOptions{Experts: 3, PerToken: 1},
			map[string]any{"num_local_experts": 3.0, "num_experts_per_tok": 1.0},
			[]string{"model.layers.1.block_sparse_moe.experts.2.w3.weight", "model.layers.0.block_sparse_moe.gate.weight"},
			[]string{"model.layers.0.mlp.gate.weight", "model.layers.0.block_sparse_moe.experts.3.w1.weight"}},
		{"olmoe", MoEOptions{},
			map[string]any{"num_experts": 4.0, "num_experts_per_tok": 2.0, "clip_qkv": nil},
			[]string{"model.layers.1.mlp.experts.3.gate_proj.weight", "model.layers.0.self_attn.k_norm.weight"},
			nil},
	} {
		o := ModelOptions{Arch: c.arch, Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 64,
			BOS: 1, EOS: 2, MoE: c.moe, Out: filepath.Join(t.TempDir(), c.arch)}
		data, err := ConfigJSON(o)
		if err != nil {
			t.Fatalf("%s: %v", c.arch, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for k, want := range c.keys {
			if got, _ := json.Marshal(m[k]); string(got) != mustJSON(want) {
				t.Errorf("%s: %s = %s, want %s", c.arch, k, got, mustJSON(want))
			}
		}
		cfg, err := models.ParseConfig(o.Out+"/config.json", data)
		if err != nil {
			t.Fatalf("%s: %v", c.arch, err)
		}
		tensors := models.ExpectedTensors(cfg)
		for _, n := range c.present {
			if tensors[n] == nil {
				t.Errorf("%s: no tensor %s", c.arch, n)
			}
		}
		for _, n := range c.absent {
			if tensors[n] != nil {
				t.Errorf("%s: unexpected tensor %s", c.arch, n)
			}
		}
	}
	if err := Model(ModelOptions{Arch: "olmoe", Hidden: 32, Layers: 1, Heads: 4, Intermediate: 8, Vocab: 16, EOS: 2,
		SlidingWindow: 4, Out: t.TempDir()}); err == nil {
		t.Error("olmoe with a sliding window: want an error")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
