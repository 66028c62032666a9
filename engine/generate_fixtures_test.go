package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/lm"
)

// idItems turns id prompts into greedy items that stop only at maxGen (the
// references are plain argmax loops, EOS not special).
func idItems(t *testing.T, e *Engine, ctxs [][]int32, maxGen []int) []genItem {
	t.Helper()
	items := make([]genItem, len(ctxs))
	for i := range ctxs {
		it, err := e.makeGenItem(lm.GenerateRequest{ContextIDs: ctxs[i], MaxTokens: maxGen[i]}, map[int32]bool{})
		if err != nil {
			t.Fatal(err)
		}
		items[i] = it
	}
	return items
}

// TestGenerateMatchesFixtures: greedy generations equal llama.cpp's for
// every fixture model with generate.jsonl, and for tiny-qwen2 with the
// tiny-qwen2-lora adapter (batch 8; batch 3 on tiny-llama, where finished
// rows are refilled with waiting requests).
func TestGenerateMatchesFixtures(t *testing.T) {
	type fixture struct {
		name, model string // reference folder, model folder
		opts        Options
	}
	var cases []fixture
	for _, name := range fixturemodel.Names() {
		cases = append(cases, fixture{name, name, Options{}})
	}
	cases = append(cases, fixture{fixturemodel.Adapter, fixturemodel.Base, Options{Adapters: []string{fixturemodel.AdapterDir(t)}}})
	for _, fx := range cases {
		t.Run(fx.name, func(t *testing.T) {
			gens, refs := testutil.Generates(t, fx.name)
			ctxs, maxGen := make([][]int32, len(gens)), make([]int, len(gens))
			for i, g := range gens {
				ctxs[i], maxGen[i] = g.ContextIDs, g.MaxNewTokens
			}
			sizes := []int{8}
			if fx.name == "tiny-llama" {
				sizes = append(sizes, 3)
			}
			for _, bs := range sizes {
				o := fx.opts
				o.BatchSize = bs
				e := openFixture(t, fx.model, o)
				got, err := e.generateItems(context.Background(), idItems(t, e, ctxs, maxGen))
				if err != nil {
					t.Fatal(err)
				}
				for i, g := range got {
					if !slices.Equal(g.IDs, refs[i].GeneratedIDs) || g.StopReason != stopMaxTokens {
						t.Errorf("batch %d, %s: got %v (%s), llama.cpp %v", bs, gens[i].ID, g.IDs, g.StopReason, refs[i].GeneratedIDs)
					}
				}
			}
		})
	}
}
