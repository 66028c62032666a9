package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/lm"
)

// TestExtendInPlaceExact: prompts after a shared 40-token prefix, run by
// the in-place extend (two prompts of 5 and 12 more tokens into rows 2 and
// 0 of a 3-row cache, in that order), give the bits of the whole-cache
// extend: the logits after each prompt and every cache slot of each
// prompt, in every layer, on every architecture of the packing test
// (sliding windows, soft-caps, MoE, a separate-mode LoRA adapter, LongRoPE
// with its switch at 16, so past it) — and row 1, prefilled with another
// prompt before, keeps every bit of its cache.
func TestExtendInPlaceExact(t *testing.T) {
	for _, m := range packModels(t) {
		t.Run(m.name, func(t *testing.T) {
			e, err := Open(m.dir, m.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ids := randomIDs(rand.New(rand.NewPCG(4, 2)), e.Config().VocabSize)
			shots := ids(40)
			items := []genItem{{ctx: append(slices.Clone(shots), ids(5)...)}, {ctx: append(slices.Clone(shots), ids(12)...)}}
			other := ids(30)
			want, wantKV, _ := extendBoth(t, e, items, other, false)
			got, gotKV, busy := extendBoth(t, e, items, other, true)
			if !slices.Equal(math32bits(got), math32bits(want)) {
				t.Errorf("in-place extend: logits differ from the whole-cache extend's")
			}
			for i := range wantKV {
				if !slices.Equal(math32bits(gotKV[i]), math32bits(wantKV[i])) {
					t.Errorf("in-place extend: cache slice %d differs from the whole-cache extend's", i)
					break
				}
			}
			for i := range busy[0] {
				if !slices.Equal(math32bits(busy[1][i]), math32bits(busy[0][i])) {
					t.Errorf("in-place extend: row 1's cache tensor %d changed", i)
					break
				}
			}
		})
	}
}

// extendBoth prefills other into row 1 of a 3-row cache of 96 slots, then
// the items (sharing a 40-token prefix) into rows 2 and 0 after that
// prefix, in place or through the whole-cache extend, and returns the
// logits, each item's cache slots and row 1's cache slots before and
// after.
func extendBoth(t *testing.T, e *Engine, items []genItem, other []int32, inPlace bool) ([]float32, [][]float32, [2][][]float32) {
	t.Helper()
	gs, c := genTestCache(t, e, 3)
	defer c.close()
	rows := make([]*genRow, 3)
	rows[1] = &genRow{it: &genItem{ctx: other}}
	x, kind, args, _, _ := e.prefillArgs(gs, c, rows, []int{1}, genGroup{}, 0, nil)
	if _, _, err := e.runGen(x, kind, c, args); err != nil {
		t.Fatal(err)
	}
	var busy [2][][]float32
	busy[0] = cacheRow(c, 1, len(other))
	grp := genGroup{prefix: 40, members: []int{0, 1}}
	pc := &prefixCache{}
	if err := e.loadPrefix(gs, pc, items, 0, grp, c.S); err != nil {
		t.Fatal(err)
	}
	defer pc.row.close()
	rows[2], rows[0] = &genRow{it: &items[0]}, &genRow{it: &items[1]}
	admitted := []int{2, 0}
	if inPlace {
		x, kind, args, _, _ = e.extendInPlaceArgs(gs, c, rows, admitted, grp.prefix, pc)
	} else {
		x, kind, args, _, _ = e.prefillArgs(gs, c, rows, admitted, grp, grp.prefix, pc)
	}
	logits, _, err := e.runGen(x, kind, c, args)
	if err != nil {
		t.Fatal(err)
	}
	v := e.Config().VocabSize
	logits = logits[:2*v] // the whole-cache extend pads its rows on fixed shapes only
	kv := append(cacheRow(c, 2, len(items[0].ctx)), cacheRow(c, 0, len(items[1].ctx))...)
	busy[1] = cacheRow(c, 1, len(other))
	return logits, kv, busy
}

// TestExtendInPlaceMemory: eight prompts after a shared 192-token prefix
// extend the decode cache where it is. At this shape (16 layers, 4 KV heads
// of 16, 8 rows of ≥ 202 slots: ≥ 12.6 MiB of cache) no graph execution of
// the generation holds half the cache's bytes of intermediates at once
// (2.9 MiB); the whole-cache extend, which held every layer's written rows
// until its end, held 14.5 MiB (run through it instead, this test fails).
func TestExtendInPlaceMemory(t *testing.T) {
	const rows, steps = 8, 2
	e, err := Open(deepModel(t), Options{BatchSize: rows})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.backend.String() != gocpu.Name {
		t.Skipf("in-place cache writes are the pure-Go backend's (device %s)", e.backend.String())
	}
	ids := randomIDs(rand.New(rand.NewPCG(3, 8)), 512)
	shots := ids(192)
	var reqs []lm.GenerateRequest
	for range rows {
		reqs = append(reqs, lm.GenerateRequest{ContextIDs: append(slices.Clone(shots), ids(8)...), MaxTokens: steps})
	}
	cache := int64(deepSlotBytes) * rows * (200 + steps) // bytes, at the fewest slots
	gocpu.SetMemStats(true)
	defer gocpu.SetMemStats(false)
	if _, err := e.GenerateUntil(context.Background(), reqs); err != nil {
		t.Fatal(err)
	}
	if s := e.GenStats(); s.PrefillTokens != 192+rows*8 {
		t.Fatalf("prefilled %d tokens, want the prefix once and 8 a prompt (%d)", s.PrefillTokens, 192+rows*8)
	}
	s := gocpu.MemStats()
	if s.Peak >= cache/2 {
		t.Errorf("an execution held %.2f MiB of intermediates at once (a %.2f MiB cache: bound half of it); largest %s",
			mib(s.Peak), mib(cache), s.LargestKey)
	}
	t.Logf("cache %.2f MiB; peak intermediates %.2f MiB over %d executions", mib(cache), mib(s.Peak), s.Executions)
}
