package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fixtureGenerate is one line of generate.jsonl.
type fixtureGenerate struct {
	ID           string  `json:"id"`
	ContextIDs   []int32 `json:"context_ids"`
	MaxNewTokens int     `json:"max_new_tokens"`
}

// fixtureGenerated is one line of reference_generate.jsonl (llama.cpp).
type fixtureGenerated struct {
	ID           string  `json:"id"`
	GeneratedIDs []int32 `json:"generated_ids"`
}

// idItems turns id prompts into greedy items that stop only at maxGen (the
// references are plain argmax loops, EOS not special).
func idItems(t *testing.T, e *Engine, ctxs [][]int32, maxGen []int) []genItem {
	t.Helper()
	items := make([]genItem, len(ctxs))
	for i := range ctxs {
		it, err := e.makeGenItem(GenerateRequest{ContextIDs: ctxs[i], MaxTokens: maxGen[i]}, map[int32]bool{})
		if err != nil {
			t.Fatal(err)
		}
		items[i] = it
	}
	return items
}

// TestGenerateMatchesFixtures: greedy generations equal llama.cpp's for
// every fixture model with generate.jsonl, at batch 1 and batch 8.
func TestGenerateMatchesFixtures(t *testing.T) {
	n := 0
	for _, dir := range fixtureModels(t) {
		if _, err := os.Stat(filepath.Join(dir, "generate.jsonl")); err != nil {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			gens := readJSONL[fixtureGenerate](t, filepath.Join(dir, "generate.jsonl"))
			refs := readJSONL[fixtureGenerated](t, filepath.Join(dir, "reference_generate.jsonl"))
			if len(gens) != len(refs) || len(gens) == 0 {
				t.Fatalf("%d prompts, %d references", len(gens), len(refs))
			}
			ctxs, maxGen := make([][]int32, len(gens)), make([]int, len(gens))
			for i, g := range gens {
				ctxs[i], maxGen[i] = g.ContextIDs, g.MaxNewTokens
			}
			for _, bs := range []int{1, 8} {
				e := openFixture(t, filepath.Base(dir), Options{BatchSize: bs})
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
	if n == 0 {
		t.Fatal("no fixture model has generate.jsonl")
	}
}
