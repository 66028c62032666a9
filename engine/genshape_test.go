package engine

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// TestStickyShape: where shapes are fixed as on a GPU, the generation
// calls of a run keep one cache shape: a smaller call takes the last
// shape, a larger one the shape covering both while that fits
// genCacheBudget, and a call too large for that its own shape, which the
// calls after it start from.
func TestStickyShape(t *testing.T) {
	const slot = genCacheBudget / 32768 // bytes per row and slot: 32768 row-slots fit the budget
	var gs genState
	for i, c := range []struct{ b, s, wantB, wantS int }{
		{32, 512, 32, 512}, // the first call: its own
		{8, 256, 32, 512},  // smaller: the last shape
		{16, 768, 32, 768}, // longer: both covered in 24576 row-slots
		{64, 256, 64, 256}, // both would take 64 × 768: its own
		{8, 256, 64, 256},  // the last shape
		{1, 2048, 1, 2048}, // both would take 64 × 2048: its own
		{4, 1024, 4, 2048}, // both covered in 8192 row-slots
		{2, 512, 4, 2048},  // the last shape
	} {
		if b, s := gs.stickyShape(c.b, c.s, slot); b != c.wantB || s != c.wantS {
			t.Errorf("call %d needing %d × %d: cache %d × %d, want %d × %d", i, c.b, c.s, b, s, c.wantB, c.wantS)
		}
	}
}

// TestUniformScoringShapes: on a backend of bucketed shapes (GoMLX's
// simplego), fixing shapes as on a GPU gives a scoring call's unpacked
// passes one shape, with the same scores; on the pure-Go backend, whose
// shapes are exact, nothing changes.
func TestUniformScoringShapes(t *testing.T) {
	var reqs []lm.LoglikelihoodRequest // 26–46 tokens: rows of the 32 and 48 buckets
	for i := range 21 {
		ids := make([]int32, 26+i)
		for j := range ids {
			ids[j] = int32(3 + (i*31+j*7)%200)
		}
		c := 1 + i%3
		reqs = append(reqs, lm.LoglikelihoodRequest{ContextIDs: ids[:len(ids)-c], ContinuationIDs: ids[len(ids)-c:]})
	}
	scoring := func(e *Engine) int {
		n := 0
		for k := range e.seen {
			if strings.HasPrefix(k, "scoring ") {
				n++
			}
		}
		return n
	}
	run := func(backend string, fixed bool) ([]lm.LoglikelihoodResult, int) {
		e := openFixture(t, "tiny-llama", Options{Backend: backend, Packing: "off", BatchSize: 4})
		e.fixShapes = fixed
		got, err := e.Loglikelihood(context.Background(), reqs)
		if err != nil {
			t.Fatal(err)
		}
		return got, scoring(e)
	}
	want, buckets := run("go", false)
	got, fixed := run("go", true)
	if !reflect.DeepEqual(got, want) {
		t.Error("simplego: scores differ with one shape per kind")
	}
	if buckets < 2 || fixed != 1 {
		t.Errorf("simplego: %d scoring shapes fixed, %d in buckets; want 1 of several", fixed, buckets)
	}
	_, exact := run("", false)
	if _, n := run("", true); n != exact {
		t.Errorf("pure-Go backend: %d scoring shapes with shapes fixed, %d without", n, exact)
	}
}

// TestStickyDecodeShape: with shapes fixed as on a GPU, a second, smaller
// generation call reuses the first call's decode shape (one decode graph
// compiled) and generates what it does alone.
func TestStickyDecodeShape(t *testing.T) {
	gens, _ := testutil.Generates(t, "tiny-llama")
	var reqs []lm.GenerateRequest
	for _, g := range gens {
		reqs = append(reqs, lm.GenerateRequest{ContextIDs: g.ContextIDs, MaxTokens: 6})
	}
	ctx := context.Background()
	want, err := openFixture(t, "tiny-llama", Options{Backend: "go"}).GenerateUntil(ctx, reqs[:2])
	if err != nil {
		t.Fatal(err)
	}
	decodes := func(e *Engine) (n int) {
		for k := range e.seen {
			if strings.HasPrefix(k, "decode ") {
				n++
			}
		}
		return n
	}
	for _, fixed := range []bool{false, true} {
		e := openFixture(t, "tiny-llama", Options{Backend: "go"})
		e.fixShapes = fixed
		if _, err := e.GenerateUntil(ctx, reqs); err != nil {
			t.Fatal(err)
		}
		got, err := e.GenerateUntil(ctx, reqs[:2])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("fixed %v: the second call generated %+v, alone %+v", fixed, got, want)
		}
		if n := decodes(e); fixed && n != 1 || !fixed && n != 2 {
			t.Errorf("fixed %v: %d decode shapes compiled over the two calls", fixed, n)
		}
	}
}
