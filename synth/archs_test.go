package synth

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
)

// TestSynthArchs synthesizes each architecture outside the llama family (the
// mixture-of-experts ones with MoEOptions' defaults) and
// loads it back strictly (config checks, tensor coverage, graph build and a
// forward). parity/archs/arch_golden.py --synth checks the same files
// against transformers.
func TestSynthArchs(t *testing.T) {
	req := lm.LoglikelihoodRequest{ContextIDs: []int32{4, 9, 33, 7, 21, 5}, ContinuationIDs: []int32{12, 3}}
	for _, arch := range []string{"phi", "phi3", "gemma2", "gemma3", "mixtral", "qwen2moe", "qwen3moe", "olmoe"} {
		t.Run(arch, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), arch)
			window := 3
			if arch == "olmoe" {
				window = 0
			}
			err := Model(ModelOptions{Arch: arch, Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 48,
				Vocab: 64, Seed: 1, BOS: 1, EOS: 2, SlidingWindow: window, Out: dir})
			if err != nil {
				t.Fatal(err)
			}
			e, err := engine.Open(dir, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if got := e.Config().Arch(); got != synthArchs[arch][0] {
				t.Fatalf("architecture %q, want %q", got, synthArchs[arch][0])
			}
			res, err := e.Loglikelihood(context.Background(), []lm.LoglikelihoodRequest{req})
			if err != nil {
				t.Fatal(err)
			}
			if lp := res[0].LogProb; !(lp < 0) {
				t.Errorf("log-prob %g is not negative", lp)
			}
		})
	}
}

// TestSynthLongRope: --arch phi3 with LongRoPE scaling writes Phi-3.5's
// rope_scaling (short and long factors, head_dim/2 each) and
// original_max_position_embeddings, which the engine reads as a LongRoPE
// model switching at 16 tokens. parity/archs/arch_golden.py --synth checks
// the file against transformers.
func TestSynthLongRope(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "phi35")
	err := Model(ModelOptions{Arch: "phi3", Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 64,
		Seed: 1, BOS: 1, EOS: 2, MaxPositions: 128, Out: dir,
		RopeScaling: &models.RopeScaling{Type: "longrope", OriginalMaxPositionEmbeddings: 16}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := e.Config().LongRopeLength(); got != 16 {
		t.Errorf("LongRopeLength %d, want 16", got)
	}
}
