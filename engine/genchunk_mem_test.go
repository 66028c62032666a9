package engine

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/synth"
)

// TestChunkedPrefillCacheInPlace: a long prompt's chunked prefill writes
// the KV cache where it is, from the first chunk on. At this shape (16
// layers, 4 KV heads of 16, a 514-token request: ≥ 4 MiB of cache against
// under 0.5 MiB of one 16-token chunk's intermediates) no graph execution
// of the generation holds half the cache's bytes of intermediates at
// once. Before the cache was backend-owned storage (gocpu.NewZeros), it
// was made on the host and the first chunk's updates copied every cache
// tensor (4.3 MiB of intermediates held, the DynamicUpdateSlice outputs).
// Nor does the engine keep the chunks' graphs after the prompt: each
// chunk's shape (its keys) runs once, and at 32 k tokens of the 0.5B
// shape the 16 kept graphs held 550 MB.
func TestChunkedPrefillCacheInPlace(t *testing.T) {
	const n, steps = 512, 2
	dir := deepModel(t)
	withChunkTokens(t, 16)
	e, err := Open(dir, Options{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.backend.String() != gocpu.Name {
		t.Skipf("in-place cache writes are the pure-Go backend's (device %s)", e.backend.String())
	}
	prompt := randomIDs(rand.New(rand.NewPCG(2, 7)), 512)(n)
	cache := int64(deepSlotBytes) * (n + steps) // bytes, at the fewest slots
	gocpu.SetMemStats(true)
	defer gocpu.SetMemStats(false)
	if _, err := e.GenerateUntil(context.Background(), []lm.GenerateRequest{{ContextIDs: prompt, MaxTokens: steps}}); err != nil {
		t.Fatal(err)
	}
	s := gocpu.MemStats()
	if s.Peak >= cache/2 {
		t.Errorf("an execution held %.2f MiB of intermediates at once (a %.2f MiB cache: bound half of it); largest %s",
			mib(s.Peak), mib(cache), s.LargestKey)
	}
	if n := len(e.gen.chunk.byShape); n > 0 || e.gen.chunk.one != nil {
		t.Errorf("%d chunk graphs kept after the prompt (each chunk's shape runs once)", n)
	}
	t.Logf("cache %.2f MiB; peak intermediates %.2f MiB over %d executions", mib(cache), mib(s.Peak), s.Executions)
}

// deepModel writes the memory tests' model: a qwen2 of 16 layers with 4 KV
// heads of 16 dims (deepSlotBytes of KV cache a token), whose cache
// outweighs its activations.
func deepModel(t *testing.T) string {
	t.Helper()
	const layers, kvHeads, headDim = 16, 4, 16
	dir := filepath.Join(t.TempDir(), "deep")
	err := synth.Model(synth.ModelOptions{Arch: "qwen2", Hidden: kvHeads * headDim, Layers: layers, Heads: kvHeads,
		KVHeads: kvHeads, Intermediate: 64, Vocab: 512, MaxPositions: 4096, Seed: 5, BOS: 1, EOS: 2, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// deepSlotBytes is deepModel's KV cache bytes a token (float32).
const deepSlotBytes = 2 * 16 * 4 * 16 * 4
