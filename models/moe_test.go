package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// moeGoldens are the mixture-of-experts checkpoints of testdata/archs
// (parity/archs/arch_golden.py).
var moeGoldens = []string{"mixtral", "qwen2moe", "qwen3moe", "olmoe"}

// routerGolden is testdata/archs/<name>/router.json: transformers' router
// choices on one token stream.
type routerGolden struct {
	Tokens []int32 `json:"tokens"`
	Layers []struct {
		Layer   int       `json:"layer"`
		Experts [][]int32 `json:"experts"`
	} `json:"layers"`
}

// moeBlocksOf returns the MoE blocks of a model built by this package.
func moeBlocksOf(t *testing.T, m Model) *moeLlama {
	t.Helper()
	switch b := m.(*decoder).blocks.(type) {
	case *moeLlama:
		return b
	case *olmoe:
		return b.moeLlama
	}
	t.Fatalf("%s: not a MoE model", m.Config().Arch())
	return nil
}

// TestMoERouterMatchesTransformers: on a 48-token stream, every sparse
// layer's router picks for every token the experts transformers' router
// picks (forward hooks on the goldens' routers), in the same order, and
// no dense layer routes.
func TestMoERouterMatchesTransformers(t *testing.T) {
	for _, name := range moeGoldens {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "archs", name)
			b, err := os.ReadFile(filepath.Join(dir, "router.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want routerGolden
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			tm := loadTestModel(t, dir, nil)
			var layers []int
			var routes []*Node
			moeBlocksOf(t, tm.model).seen = func(layer int, experts *Node) {
				layers, routes = append(layers, layer), append(routes, experts)
			}
			exec, err := context.NewExec(tm.backend, tm.ctx.Reuse(), func(ctx *context.Context, tokens *Node) []*Node {
				layers, routes = nil, nil
				h := tm.model.Forward(ctx, Inputs{Tokens: tokens}).Hidden
				return append(routes, h)
			})
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Exec([][]int32{want.Tokens})
			if err != nil {
				t.Fatal(err)
			}
			out = out[:len(out)-1]
			if len(out) != len(want.Layers) {
				t.Fatalf("%d sparse layers routed (%v), transformers routed %d", len(out), layers, len(want.Layers))
			}
			same := 0
			for i, w := range want.Layers {
				got := out[i].Value().([][]int32)
				if layers[i] != w.Layer {
					t.Fatalf("sparse layer %d is layer %d, transformers' %d", i, layers[i], w.Layer)
				}
				for tok := range w.Experts {
					if !slices.Equal(got[tok], w.Experts[tok]) {
						t.Errorf("layer %d token %d: experts %v, transformers %v", w.Layer, tok, got[tok], w.Experts[tok])
						continue
					}
					same++
				}
			}
			t.Logf("%s: %d token-layers, every top-%d choice identical to transformers'", name, same, len(want.Layers[0].Experts[0]))
		})
	}
}
