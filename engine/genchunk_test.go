package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
)

// withChunkTokens sets the chunked prefill's chunk size for one test.
func withChunkTokens(t *testing.T, n int) {
	old := prefillChunkTokens
	prefillChunkTokens = n
	t.Cleanup(func() { prefillChunkTokens = old })
}

// TestChunkedPrefillExact: a prompt prefilled in chunks of 16 tokens
// (cache row 1 of 2) gives the bits of the one-pass prefill: the logits
// after its last token and every cache slot of the prompt, in every layer,
// on every architecture of the packing test (sliding windows, soft-caps,
// MoE, a separate-mode LoRA adapter, LongRoPE past its switch of 16), at
// lengths that end inside a chunk, on a chunk's end and inside the first
// chunk.
func TestChunkedPrefillExact(t *testing.T) {
	withChunkTokens(t, 16)
	for _, m := range packModels(t) {
		t.Run(m.name, func(t *testing.T) {
			e, err := Open(m.dir, m.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			rng := rand.New(rand.NewPCG(9, 1))
			for _, n := range []int{61, 48, 9} {
				checkPrefillChunked(t, e, randomIDs(rng, e.Config().VocabSize)(n))
			}
		})
	}
}

// checkPrefillChunked prefills prompt in one pass and in chunks and
// checks that the logits and every cache tensor are the same bits.
func checkPrefillChunked(t *testing.T, e *Engine, prompt []int32) {
	t.Helper()
	want, wantKV := onePassPrefill(t, e, prompt)
	got, gotKV := chunkedPrefill(t, e, prompt)
	if !slices.Equal(math32bits(got), math32bits(want)) {
		t.Errorf("%d tokens: chunked logits differ from the one-pass prefill's", len(prompt))
	}
	for i := range wantKV {
		if !slices.Equal(math32bits(gotKV[i]), math32bits(wantKV[i])) {
			t.Errorf("%d tokens: chunked cache tensor %d differs from the one-pass prefill's", len(prompt), i)
			break
		}
	}
}

// onePassPrefill prefills prompt whole into row 1 of a 2-row cache (the
// prefill graph) and returns the logits and each cache tensor's row-1
// slots [0, len(prompt)).
func onePassPrefill(t *testing.T, e *Engine, prompt []int32) ([]float32, [][]float32) {
	t.Helper()
	gs, c := genTestCache(t, e, 2)
	defer c.close()
	n := len(prompt)
	tp := e.prefillT(n, c.S)
	tok := make([]int32, tp)
	copy(tok, prompt)
	args := []any{tensors.FromFlatDataAndDimensions(tok, 1, tp), tensors.FromFlatDataAndDimensions([]int32{int32(n - 1)}, 1),
		tensors.FromFlatDataAndDimensions([]int32{0, 0}, 2), tensors.FromFlatDataAndDimensions([]bool{false, true}, 2)}
	logits, _, err := e.runGen(gs.prefill, "prefill", c, args)
	if err != nil {
		t.Fatal(err)
	}
	return logits, cacheRow(c, 1, n)
}

// chunkedPrefill is onePassPrefill through the chunk graphs.
func chunkedPrefill(t *testing.T, e *Engine, prompt []int32) ([]float32, [][]float32) {
	t.Helper()
	gs, c := genTestCache(t, e, 2)
	defer c.close()
	logits, err := e.runChunks(gs, c, 1, prompt)
	if err != nil {
		t.Fatal(err)
	}
	return logits, cacheRow(c, 1, len(prompt))
}

// genTestCache is the engine's generation graphs and a b-row, 96-slot cache.
func genTestCache(t *testing.T, e *Engine, b int) (*genState, *kvCache) {
	t.Helper()
	gs, err := e.genExecs()
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.newCache(b, 96)
	if err != nil {
		t.Fatal(err)
	}
	return gs, c
}

// cacheRow copies slots [0, n) of row r of every cache tensor [B, K, S, D].
func cacheRow(c *kvCache, r, n int) [][]float32 {
	var out [][]float32
	for _, x := range c.t {
		d := x.Shape().Dimensions
		flat := tensors.MustCopyFlatData[float32](x)
		var row []float32
		for k := range d[1] {
			at := ((r*d[1]+k)*d[2])*d[3] + 0
			row = append(row, flat[at:at+n*d[3]]...)
		}
		out = append(out, row)
	}
	return out
}

func math32bits(x []float32) []uint32 {
	out := make([]uint32, len(x))
	for i, v := range x {
		out[i] = math.Float32bits(v)
	}
	return out
}

// TestGenerateChunked: generations whose long prompts prefill in chunks
// (of 16 tokens; prompts of 5–70 ids, some rows decoding while another
// row prefills, batch 2 and 3, greedy and one seeded sampled request)
// are the one-pass prefill's, token for token, and count every prompt
// token once.
func TestGenerateChunked(t *testing.T) {
	for _, m := range packModels(t)[:5] {
		t.Run(m.name, func(t *testing.T) {
			var reqs []lm.GenerateRequest
			var want []lm.GenerateResult
			var wantStats GenStats
			for _, run := range []struct{ chunk, batch int }{{0, 2}, {16, 2}, {16, 3}} {
				withChunkTokens(t, run.chunk)
				o := m.opts
				o.BatchSize = run.batch
				e, err := Open(m.dir, o)
				if err != nil {
					t.Fatal(err)
				}
				if reqs == nil {
					reqs = chunkPrompts(e.Config().VocabSize)
				}
				got, err := e.GenerateUntil(context.Background(), reqs)
				s := e.GenStats()
				e.Close()
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want, wantStats = got, s
					continue
				}
				for i := range want {
					if !slices.Equal(got[i].IDs, want[i].IDs) || got[i].StopReason != want[i].StopReason {
						t.Errorf("chunk %d batch %d: request %d generated %v, one pass %v", run.chunk, run.batch, i, got[i].IDs, want[i].IDs)
					}
				}
				if s.PrefillTokens != wantStats.PrefillTokens || s.Prefills <= wantStats.Prefills {
					t.Errorf("chunk %d: %d prefills of %d tokens; one pass %d of %d (want more prefills, same tokens)",
						run.chunk, s.Prefills, s.PrefillTokens, wantStats.Prefills, wantStats.PrefillTokens)
				}
			}
		})
	}
}

// chunkPrompts are TestGenerateChunked's requests over ids in [3, vocab).
func chunkPrompts(vocab int) []lm.GenerateRequest {
	rng := rand.New(rand.NewPCG(4, 2))
	var reqs []lm.GenerateRequest
	for i, n := range []int{70, 5, 33, 17, 52, 12} {
		r := lm.GenerateRequest{ContextIDs: randomIDs(rng, vocab)(n), MaxTokens: 5}
		if i == 2 {
			r.Temperature, r.TopP, r.Seed = 0.8, 0.9, 7
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// TestChunkedPrefillMemory: a 2048-token prompt prefilled in chunks of
// 128 holds at most 6 MiB of intermediates at once on goeval's pure-Go
// backend, and no single value above 2 MiB (a chunk's MLP activations are
// 0.5 MiB at this shape, its scores over 2048 keys 2 MiB; 5.1 MiB and
// 2 MiB measured); the one-pass prefill of the same prompt (chunking off)
// holds over 18 MiB (27 MiB measured: each layer's
// [T, 1024] MLP activations, 8 MiB each, and every layer's keys and values
// until the graph's end), so the bound fails where prompts are not
// chunked.
func TestChunkedPrefillMemory(t *testing.T) {
	dir := synthWide(t, "qwen2", nil)
	prompt := randomIDs(rand.New(rand.NewPCG(1, 1)), 512)(2048)
	peak := func(chunk int) gocpu.MemStat {
		return chunkPeak(t, dir, Options{BatchSize: 1}, chunk, func(e *Engine) error {
			_, err := e.GenerateUntil(context.Background(), []lm.GenerateRequest{{ContextIDs: prompt, MaxTokens: 2}})
			return err
		})
	}
	const bound, largest = 6 << 20, 2 << 20
	chunked, whole := peak(128), peak(1<<20)
	if chunked.Peak > bound || chunked.Largest > largest {
		t.Errorf("chunked prefill held %.1f MiB at its peak (bound %d), largest value %.2f MiB (%s; bound %d)",
			mib(chunked.Peak), bound>>20, mib(chunked.Largest), chunked.LargestKey, largest>>20)
	}
	if whole.Peak <= 3*bound {
		t.Errorf("one-pass prefill held %.1f MiB at its peak: want > %d MiB (else the bound above proves nothing)", mib(whole.Peak), 3*bound>>20)
	}
	t.Logf("peak intermediates: chunked %.1f MiB (largest %.2f MiB), one pass %.1f MiB (largest %.2f MiB, %s)",
		mib(chunked.Peak), mib(chunked.Largest), mib(whole.Peak), mib(whole.Largest), whole.LargestKey)
}
