package engine

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
)

// TestGenerateCopiesLongRope: on a LongRoPE model (Phi-3.5, original
// context 16) copies of a prompt past the switch are not prefilled once —
// a row's rotary factors depend on its length, and a 17-id prompt's first
// 16 ids alone would take the short factors — so every such copy is
// prefilled whole; copies of a 16-id prompt (at the switch: short factors
// throughout) prefill its first 15 ids once and one id per copy. Each
// generates what packing off generates. (The 16-id prompts cross the
// switch at their first decode step, where each row is prefilled again,
// 17 ids.)
func TestGenerateCopiesLongRope(t *testing.T) {
	const k = 4
	dir := filepath.Join(testutil.Path(t, "models/testdata/archs"), "phi35")
	rng := rand.New(rand.NewPCG(5, 8))
	var reqs []lm.GenerateRequest
	whole, shared := 0, 0 // tokens prefilled with packing off, and on
	for p, n := range []int{17, 16, 24} {
		ctx := randomIDs(rng, 128)(n)
		for c := range k {
			reqs = append(reqs, lm.GenerateRequest{ContextIDs: ctx, MaxTokens: 5, Temperature: 1, Seed: uint64(10*p + c)})
		}
		whole += k * n
		shared += k * n
		if n == 16 { // the first decode step crosses the switch: each copy re-prefilled (genlongrope.go)
			whole += k * (n + 1)
			shared += k*(n+1) - k*n + (n - 1 + k) // the prompt less one id once, then an id per copy
		}
	}
	var want []lm.GenerateResult
	for _, packing := range []string{"off", "on"} {
		e, err := Open(dir, Options{BatchSize: 4, Packing: packing})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		if e.Config().LongRopeLength() == 0 {
			t.Fatal("phi35 fixture has no LongRoPE")
		}
		got, err := e.GenerateUntil(context.Background(), slices.Clone(reqs))
		if err != nil {
			t.Fatal(err)
		}
		if s, w := e.GenStats(), map[string]int{"off": whole, "on": shared}[packing]; s.PrefillTokens != w {
			t.Errorf("packing %s: %d tokens prefilled, want %d", packing, s.PrefillTokens, w)
		}
		if want == nil {
			want = got
			continue
		}
		for i := range want {
			if !slices.Equal(got[i].IDs, want[i].IDs) {
				t.Errorf("request %d: packed %v, whole prompts %v", i, got[i].IDs, want[i].IDs)
			}
		}
	}
}
