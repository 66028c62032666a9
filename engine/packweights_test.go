package engine

import (
	"context"
	"strings"
	"testing"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
)

// TestWeightsPackedOnce: on the pure-Go backend, scoring and generating
// leave the linear weights packed in place (internal/gocpu/weights.go):
// nothing in the engine reads them back after loading, which would unpack
// them and make every product pack its weight again. The embedding, which
// the forward pass gathers from, stays as stored.
func TestWeightsPackedOnce(t *testing.T) {
	e, err := Open(packModels(t)[1].dir, Options{Device: "cpu"}) // synth-qwen2: hidden 32, MLP 64
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Loglikelihood(ctx, mcWorkload(3, 4, 40, 5, e.Config().VocabSize)); err != nil {
		t.Fatal(err)
	}
	gen := []lm.GenerateRequest{{ContextIDs: []int32{5, 6, 7}, MaxTokens: 4}, {ContextIDs: []int32{8, 9}, MaxTokens: 4}}
	if _, err := e.GenerateUntil(ctx, gen); err != nil {
		t.Fatal(err)
	}
	packed := map[string]bool{}
	e.ctx.EnumerateVariables(func(v *mlctx.Variable) {
		val, err := v.Value()
		if err != nil {
			t.Fatalf("%s: %v", v.ScopeAndName(), err)
		}
		buf, err := val.Buffer(e.backend, 0)
		if err != nil {
			t.Fatalf("%s: %v", v.ScopeAndName(), err)
		}
		packed[v.ScopeAndName()] = gocpu.PackedWeights(buf) == 1
	})
	n := 0
	for name, p := range packed {
		if p {
			n++
		}
		if p && (strings.Contains(name, "embed") || strings.Contains(name, "norm")) {
			t.Errorf("%s is packed in place; it is not only multiplied", name)
		}
	}
	// Per layer q, o (32 × 32) and gate, up, down (64 × 32, 32 × 64) have
	// rows a multiple of every kernel's panel width (8, 16 or 32).
	if want := 2 * 5; n < want {
		t.Errorf("%d weights packed in place after scoring, want at least %d: %v", n, want, packed)
	}
}
