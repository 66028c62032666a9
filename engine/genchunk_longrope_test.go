package engine

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/synth"
)

// longRopeSwitch is original_max_position_embeddings of longRopeModel:
// two chunks of 16 tokens lie below it.
const longRopeSwitch = 32

// longRopeModel synthesizes a tiny Phi-3.5-shaped LongRoPE model (switch at
// 32 tokens, 256 positions: long factors up to 8×) and returns its folder.
func longRopeModel(t *testing.T) string { return longRopeModelAt(t, longRopeSwitch, 256, 11) }

// longRopeModelAt is longRopeModel switching at orig tokens, with maxPos
// positions and weights drawn from seed.
func longRopeModelAt(t *testing.T, orig, maxPos int, seed uint64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "phi3-longrope")
	err := synth.Model(synth.ModelOptions{Arch: "phi3", Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 64,
		Vocab: 256, MaxPositions: maxPos, Seed: seed, BOS: 1, EOS: 2, Out: dir,
		RopeScaling: &models.RopeScaling{Type: "longrope", OriginalMaxPositionEmbeddings: orig}})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestChunkedPrefillLongRope: a LongRoPE prompt prefilled in chunks of 16
// gives the one-pass prefill's logits and cache bits just below, at and
// just above the switch (31, 32, 33 tokens) and well past it (70). Every
// chunk must take the factors of the whole prompt's length: a chunk that
// picked them by its own last position (the first two chunks of a 33- or
// 70-token prompt end at or before the switch) would rotate them by the
// short factors where the one pass takes the long ones, and fail here.
func TestChunkedPrefillLongRope(t *testing.T) {
	withChunkTokens(t, 16)
	e, err := Open(longRopeModel(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := e.Config().LongRopeLength(); got != longRopeSwitch {
		t.Fatalf("LongRopeLength = %d, want %d", got, longRopeSwitch)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{longRopeSwitch - 1, longRopeSwitch, longRopeSwitch + 1, 70} {
		checkPrefillChunked(t, e, randomIDs(rng, e.Config().VocabSize)(n))
	}
}

// TestScoreChunkedLongRope: LongRoPE rows scored a chunk of 16 tokens at a
// time give the one pass's scores bit for bit — rows of 30 to 35 scored
// tokens (each side of the switch and on it) and of 70 — and run more
// passes than the one pass.
func TestScoreChunkedLongRope(t *testing.T) {
	ids := randomIDs(rand.New(rand.NewPCG(3, 9)), 256)
	var ctxs, conts [][]int32
	for _, n := range [][2]int{{25, 6}, {20, 12}, {31, 2}, {30, 4}, {1, 34}, {33, 3}, {60, 11}} {
		ctxs, conts = append(ctxs, ids(n[0])), append(conts, ids(n[1]))
	}
	checkScoreChunked(t, longRopeModel(t), Options{}, func(*Engine) ([][]int32, [][]int32) { return ctxs, conts })
}

// TestGenerateChunkedLongRope: greedy generations of a LongRoPE model
// whose prompts prefill in chunks of 16 are the one-pass prefill's, token
// for token, at batch 1 and 3 — prompts below, at and above the switch,
// and prompts whose decode crosses it (genlongrope.go's re-prefill, in
// chunks once the whole sequence is longer than a chunk).
func TestGenerateChunkedLongRope(t *testing.T) {
	dir := longRopeModel(t)
	ids := randomIDs(rand.New(rand.NewPCG(2, 6)), 256)
	var reqs []lm.GenerateRequest
	for _, n := range []int{10, 20, longRopeSwitch - 1, longRopeSwitch, longRopeSwitch + 1, 70} {
		reqs = append(reqs, lm.GenerateRequest{ContextIDs: ids(n), MaxTokens: 14})
	}
	want := generateWith(t, dir, 0, 1, reqs)
	for _, bs := range []int{1, 3} {
		got := generateWith(t, dir, 16, bs, reqs)
		for i := range want {
			if !slices.Equal(got[i].IDs, want[i].IDs) || got[i].StopReason != want[i].StopReason {
				t.Errorf("batch %d, %d-token prompt: chunked generated %v, one pass %v", bs, len(reqs[i].ContextIDs), got[i].IDs, want[i].IDs)
			}
		}
	}
}

// TestReprefillChunkedLongRope: a 10-token prompt (one prefill) whose
// decode crosses the switch re-prefills its 33 tokens in three chunks of
// 16 (four prefills in all; two in one pass) and generates the one pass's
// tokens.
func TestReprefillChunkedLongRope(t *testing.T) {
	dir := longRopeModel(t)
	reqs := []lm.GenerateRequest{{ContextIDs: randomIDs(rand.New(rand.NewPCG(7, 1)), 256)(10), MaxTokens: 30}}
	prefills := map[int]int{}
	var want []lm.GenerateResult
	for _, chunk := range []int{0, 16} {
		withChunkTokens(t, chunk)
		e, err := Open(dir, Options{BatchSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.GenerateUntil(context.Background(), slices.Clone(reqs))
		prefills[chunk] = e.GenStats().Prefills
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(got[0].IDs) <= longRopeSwitch-10 {
			t.Fatalf("chunk %d: generated %d tokens, not past the switch", chunk, len(got[0].IDs))
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got[0].IDs, want[0].IDs) {
			t.Errorf("chunked re-prefill generated %v, one pass %v", got[0].IDs, want[0].IDs)
		}
	}
	if prefills[0] != 2 || prefills[16] != 4 {
		t.Errorf("prefills: one pass %d, chunks of 16 %d; want 2 and 4 (the re-prefill of 33 tokens in three chunks)", prefills[0], prefills[16])
	}
}

// TestGenerateCrossesLongRopeChunked is TestGenerateCrossesLongRope
// (transformers' greedy_cross.jsonl, Phi-3.5 fixture, switch at 16) with
// prompts and crossing re-prefills run in chunks of 16 tokens.
func TestGenerateCrossesLongRopeChunked(t *testing.T) {
	withChunkTokens(t, 16)
	checkGreedyCross(t, 1, 3)
}

// generateWith runs reqs greedily on the model in dir with chunks of chunk
// tokens (0: the default) and batch size bs.
func generateWith(t *testing.T, dir string, chunk, bs int, reqs []lm.GenerateRequest) []lm.GenerateResult {
	t.Helper()
	withChunkTokens(t, chunk)
	e, err := Open(dir, Options{BatchSize: bs})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got, err := e.GenerateUntil(context.Background(), slices.Clone(reqs))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestChunkedLongRopeMemory: a LongRoPE model's 2048-token prompt (switch
// at 256) prefilled, and a 2048-token row scored, in chunks of 128 hold
// at most 6 MiB of intermediates at once on goeval's pure-Go backend, as
// TestChunkedPrefillMemory's and TestScoreChunkedMemory's rows do; the one
// pass over each (chunking off, as LongRoPE ran before) holds over 18 MiB.
func TestChunkedLongRopeMemory(t *testing.T) {
	dir := synthWide(t, "phi3", &models.RopeScaling{Type: "longrope", OriginalMaxPositionEmbeddings: 256})
	ids := randomIDs(rand.New(rand.NewPCG(1, 3)), 512)
	prompt, ctxs, conts := ids(2048), [][]int32{ids(2000)}, [][]int32{ids(48)}
	peak := func(chunk int, run func(e *Engine) error) gocpu.MemStat {
		return chunkPeak(t, dir, Options{BatchSize: 1, Packing: "off"}, chunk, run)
	}
	generate := func(e *Engine) error {
		_, err := e.GenerateUntil(context.Background(), []lm.GenerateRequest{{ContextIDs: prompt, MaxTokens: 2}})
		return err
	}
	score := func(e *Engine) error {
		_, err := e.ScoreIDs(context.Background(), ctxs, conts, false)
		return err
	}
	const bound = 6 << 20
	for _, c := range []struct {
		name string
		run  func(*Engine) error
	}{{"prefill", generate}, {"scoring", score}} {
		chunked, whole := peak(128, c.run), peak(1<<20, c.run)
		if chunked.Peak > bound {
			t.Errorf("chunked %s held %.1f MiB at its peak (bound %d MiB), largest %.2f MiB (%s)",
				c.name, mib(chunked.Peak), bound>>20, mib(chunked.Largest), chunked.LargestKey)
		}
		if whole.Peak <= 3*bound {
			t.Errorf("one-pass %s held %.1f MiB at its peak: want > %d MiB (else the bound above proves nothing)", c.name, mib(whole.Peak), 3*bound>>20)
		}
		t.Logf("%s peak intermediates: chunked %.1f MiB, one pass %.1f MiB", c.name, mib(chunked.Peak), mib(whole.Peak))
	}
}
