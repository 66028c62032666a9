package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/gocpu"
)

// TestScoreChunkedExact: rows scored a chunk of 16 tokens at a time
// through a one-row cache (one item per row, batch 1: packing off) give
// the one pass's log-probs, per-token log-probs and top tokens bit for
// bit, and its is_greedy and token counts, on every architecture of the
// packing test (LongRoPE too) — with continuations inside
// one chunk, across chunk ends and ending on one, and a row of one chunk
// (one pass either way). The chunked run must run more passes.
func TestScoreChunkedExact(t *testing.T) {
	for _, m := range packModels(t) {
		t.Run(m.name, func(t *testing.T) {
			checkScoreChunked(t, m.dir, m.opts, func(e *Engine) (ctxs, conts [][]int32) {
				return chunkScoreRows(e.Config().VocabSize, e.maxLen)
			})
		})
	}
}

// checkScoreChunked scores the rows rows gives (one item per row, batch
// 1, packing off) on the model in dir once in one pass and once a chunk
// of 16 tokens at a time: the chunked run must run more passes and give
// the one pass's scores bit for bit (sameScore).
func checkScoreChunked(t *testing.T, dir string, opts Options, rows func(e *Engine) (ctxs, conts [][]int32)) {
	t.Helper()
	var want []Score
	var wantBatches int
	for _, chunk := range []int{0, 16} {
		withChunkTokens(t, chunk)
		opts.Packing, opts.BatchSize = "off", 1
		e, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctxs, conts := rows(e)
		got, err := e.ScoreIDs(context.Background(), ctxs, conts, true)
		batches := e.Stats().Batches
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want, wantBatches = got, batches
			continue
		}
		if batches <= wantBatches {
			t.Errorf("chunked scoring ran %d passes, one pass %d: not chunked", batches, wantBatches)
		}
		for i := range want {
			if !sameScore(got[i], want[i]) {
				t.Errorf("row %d (%d+%d tokens): chunked %+v, one pass %+v", i, len(ctxs[i]), len(conts[i]), got[i], want[i])
			}
		}
	}
}

// chunkScoreRows are TestScoreChunkedExact's (context, continuation) ids
// over [3, vocab), continuations shorter than maxLen (contexts are cut to
// fit it).
func chunkScoreRows(vocab, maxLen int) (ctxs, conts [][]int32) {
	ids := randomIDs(rand.New(rand.NewPCG(6, 3)), vocab)
	for _, n := range [][2]int{{55, 6}, {20, 30}, {40, 1}, {33, 15}, {10, 3}, {1, 40}} {
		ctxs, conts = append(ctxs, ids(n[0])), append(conts, ids(min(n[1], maxLen-1)))
	}
	return ctxs, conts
}

// sameScore reports whether two scores are the same bits.
func sameScore(a, b Score) bool {
	bits := func(x []float64) []uint64 {
		out := make([]uint64, len(x))
		for i, v := range x {
			out[i] = math.Float64bits(v)
		}
		return out
	}
	return math.Float64bits(a.LogProb) == math.Float64bits(b.LogProb) && a.IsGreedy == b.IsGreedy &&
		a.NumTokens == b.NumTokens && slices.Equal(bits(a.TokenLogProbs), bits(b.TokenLogProbs)) &&
		slices.Equal(a.TopIDs, b.TopIDs) && slices.Equal(bits(a.TopLogProbs), bits(b.TopLogProbs))
}

// TestScoreChunkedMemory: a 2048-token row scored in chunks of 128 holds
// at most 6 MiB of intermediates at once on goeval's pure-Go backend (the
// shape of TestChunkedPrefillMemory: a chunk's MLP activations 0.5 MiB,
// its scores over 2048 keys 2 MiB), and the one pass over the same row
// (chunking off) over 18 MiB: each layer's [T, 1024] MLP activations, 8
// MiB each, so the bound fails where long rows are scored whole.
func TestScoreChunkedMemory(t *testing.T) {
	dir := synthWide(t, "qwen2", nil)
	ids := randomIDs(rand.New(rand.NewPCG(1, 2)), 512)
	ctxs, conts := [][]int32{ids(2000)}, [][]int32{ids(48)}
	peak := func(chunk int) gocpu.MemStat {
		return chunkPeak(t, dir, Options{BatchSize: 1, Packing: "off"}, chunk, func(e *Engine) error {
			_, err := e.ScoreIDs(context.Background(), ctxs, conts, false)
			if g := e.execs.chunk; err == nil && g != nil && (len(g.byShape) > 0 || g.one != nil) {
				t.Errorf("%d scoring chunk graphs kept after the call (each chunk's shape runs once)", len(g.byShape))
			}
			return err
		})
	}
	const bound = 6 << 20
	chunked, whole := peak(128), peak(1<<20)
	if chunked.Peak > bound {
		t.Errorf("chunked scoring held %.1f MiB at its peak (bound %d MiB), largest %.2f MiB (%s)",
			mib(chunked.Peak), bound>>20, mib(chunked.Largest), chunked.LargestKey)
	}
	if whole.Peak <= 3*bound {
		t.Errorf("one-pass scoring held %.1f MiB at its peak: want > %d MiB (else the bound above proves nothing)", mib(whole.Peak), 3*bound>>20)
	}
	t.Logf("peak intermediates: chunked %.1f MiB (largest %.2f MiB, %s), one pass %.1f MiB (largest %.2f MiB, %s)",
		mib(chunked.Peak), mib(chunked.Largest), chunked.LargestKey, mib(whole.Peak), mib(whole.Largest), whole.LargestKey)
}
