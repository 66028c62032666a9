package models

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// TestGraniteIsScaledLlama checks Granite against the llama decoder (whose
// graph the Hugging Face parity tests pin), with no Python reference:
// Granite's multipliers by powers of two are exact rescalings of llama
// weights, so Granite with embedding_multiplier 4, residual_multiplier
// 0.5, attention_multiplier 2/√head_dim and logits_scaling 4 must give,
// bit for bit, ¼ of the logits of a llama checkpoint whose embedding is
// ×4, whose o_proj and down_proj (weights and biases) are ×0.5 and whose
// q_proj is ×2. With every multiplier neutral (the attention one 1/√8)
// Granite is llama itself. Its tensor list is llama's and its graph reads
// all of it.
func TestGraniteIsScaledLlama(t *testing.T) {
	const seed = 7
	cfg := func(arch, extra string) string {
		return tinyLlamaJSON(`"architectures":["` + arch + `"],"attention_bias":true,"tie_word_embeddings":false` + extra)
	}
	llama := writeCheckpoint(t, cfg("LlamaForCausalLM", ""), seed, nil)
	scaled := map[string]float32{"model.embed_tokens.weight": 4}
	for i := range 2 {
		p := layerPrefix(i)
		for _, n := range []string{"self_attn.o_proj.weight", "self_attn.o_proj.bias", "mlp.down_proj.weight"} {
			scaled[p+n] = 0.5
		}
		scaled[p+"self_attn.q_proj.weight"], scaled[p+"self_attn.q_proj.bias"] = 2, 2
	}
	llamaScaled := writeCheckpoint(t, cfg("LlamaForCausalLM", ""), seed, scaled)
	neutral := writeCheckpoint(t, cfg("GraniteForCausalLM", fmt.Sprintf(`,"attention_multiplier":%v`, 1/math.Sqrt(8))), seed, nil)
	granite := writeCheckpoint(t, cfg("GraniteForCausalLM", fmt.Sprintf(
		`,"embedding_multiplier":4,"residual_multiplier":0.5,"attention_multiplier":%v,"logits_scaling":4`, 2/math.Sqrt(8))), seed, nil)
	ids := []int32{5, 17, 33, 2, 60, 8, 41, 12, 9, 30}
	same := func(name string, got, want []float32) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: logit %d = %g, want %g (bit for bit)", name, i, got[i], want[i])
			}
		}
	}
	base := logitsOf(t, llama, ids, 1)
	same("neutral Granite vs llama", logitsOf(t, neutral, ids, 1), base)
	got := logitsOf(t, granite, ids, 1)
	same("Granite vs rescaled llama", got, logitsOf(t, llamaScaled, ids, 0.25))
	diff := 0.0
	for i := range got {
		diff = max(diff, math.Abs(float64(got[i]-base[i])))
	}
	if diff < 1e-3 {
		t.Errorf("Granite's multipliers changed the logits by at most %g: they are not applied", diff)
	}
	checkGraphReadsEveryTensor(t, granite)
}

// logitsOf runs the checkpoint in dir over ids (one row) and returns every
// position's logits [T·V] multiplied by mul (in the graph).
func logitsOf(t *testing.T, dir string, ids []int32, mul float64) []float32 {
	t.Helper()
	tm := loadTestModel(t, dir, nil)
	exec, err := context.NewExec(tm.backend, tm.ctx.Reuse(), func(ctx *context.Context, tokens *Node) *Node {
		h := tm.model.Forward(ctx, Inputs{Tokens: tokens}).Hidden
		return MulScalar(ConvertDType(tm.model.Logits(ctx, h), dtypes.Float32), mul)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec([][]int32{ids})
	if err != nil {
		t.Fatal(err)
	}
	var flat []float32
	for _, row := range out[0].Value().([][][]float32)[0] {
		flat = append(flat, row...)
	}
	return flat
}
