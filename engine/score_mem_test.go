package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/synth"
)

// TestScoreMemory measures the peak RSS (VmHWM) of a child process that
// scores a rolling request of two 2048-token windows at batch 8 on a
// synthetic qwen2 (hidden 128, 3 layers, vocab 128256: 133 MB of f32
// weights), and requires ≤ 1.3 × the weight bytes + 512 MiB. Before the LM
// head ran in chunks (head.go) the pass formed [4096, 128256] logits and
// their float64 copies (~10 GB). Opt-in (GOEVAL_MEM_TEST=1): it takes a few
// minutes on two cores.
func TestScoreMemory(t *testing.T) {
	if os.Getenv("GOEVAL_MEM_TEST") == "" {
		t.Skip("set GOEVAL_MEM_TEST=1 to measure scoring memory (slow)")
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := synth.Model(synth.ModelOptions{Arch: "qwen2", Hidden: 128, Layers: 3, Heads: 4, KVHeads: 2,
		Intermediate: 256, Vocab: 128256, MaxPositions: 2048, Seed: 1, BOS: 1, EOS: 2, Out: dir}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	kb := childHWM(t, "TestScoreMemoryChild", "GOEVAL_MEM_MODEL="+dir)
	bound := st.Size()*13/10 + 512<<20
	t.Logf("rolling 2 × 2048 tokens, batch 8: VmHWM %d MiB; bound 1.3 × %d MiB + 512 MiB = %d MiB", kb>>10, st.Size()>>20, bound>>20)
	if int64(kb)<<10 > bound {
		t.Errorf("peak RSS %d MiB over the bound %d MiB", kb>>10, bound>>20)
	}
}

// TestScoreMemoryChild is the child process of TestScoreMemory.
func TestScoreMemoryChild(t *testing.T) {
	dir := os.Getenv("GOEVAL_MEM_MODEL")
	if dir == "" {
		t.Skip("child of TestScoreMemory")
	}
	e, err := Open(dir, Options{BatchSize: 8, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	ids := make([]int32, 2*2048)
	for i := range ids {
		ids[i] = int32(3 + rng.IntN(128000))
	}
	res, err := e.LoglikelihoodRolling(context.Background(), []lm.RollingRequest{{IDs: ids}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].NumTokens != len(ids) {
		t.Fatalf("scored %d tokens, want %d", res[0].NumTokens, len(ids))
	}
	s := e.Stats()
	fmt.Printf("head: %d calls of ≤ %d rows; last pass B=%d T=%d K=%d\n", s.HeadCalls, s.HeadRows, s.LastB, s.LastT, s.LastK)
	fmt.Printf("VmHWM_kB=%d\n", vmHWM(t))
}
