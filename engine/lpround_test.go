package engine

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL

	"github.com/goeval/goeval/synth"
)

// TestEarlierLogProbs: the head's fifth output is the largest log-prob of
// the tokens before the target (−Inf for target 0), on the pure-Go
// backends.
func TestEarlierLogProbs(t *testing.T) {
	for _, name := range []string{"go", "gocpu"} {
		backend, err := newBackend(name, compileCache{})
		if err != nil {
			t.Fatal(err)
		}
		logits := [][]float32{{0.5, -1.25, 2, 0.75, 1.5}, {3, 2.5, -4, 0, 1}, {1, 1, 1, 1, 1}}
		targets := []int32{3, 0, 4}
		out := MustExecOnce(backend, func(l, tg *Node) *Node {
			_, top := targetLogProbs(l, tg)
			return earlierLogProbs(l, tg, top)
		}, logits, targets)
		got := out.Value().([]float64)
		for i, row := range logits {
			want, best := math.Inf(-1), -1
			for j := range int(targets[i]) {
				if best < 0 || row[j] > row[best] {
					best = j
				}
			}
			if best >= 0 {
				want = hostLogProb(row, best)
			}
			if got[i] != want && math.Abs(got[i]-want) > 1e-12 {
				t.Errorf("%s row %d: earlier log-prob %v, want %v", name, i, got[i], want)
			}
		}
		backend.Finalize()
	}
}

// TestLPRoundApply: log-probs rounded to bfloat16, and the target greedy
// only when it is the first of the rounded maxima (lm-eval's argmax over
// its bfloat16 log-softmax).
func TestLPRoundApply(t *testing.T) {
	r, err := lpRoundOf("bfloat16")
	if err != nil || r == nil {
		t.Fatal(err)
	}
	const a, b = -2.001, -2.004 // one bfloat16 value (-2): a tie once rounded
	h := headOut{lp: []float64{a, b, b, -3, a}, miss: make([]bool, 5), topLP: make([]float64, 5)}
	top := []float64{a, a, a, a, a}
	earlier := []float64{math.Inf(-1), -5, a, -2.5, -2.3}
	r.apply(&h, top, earlier)
	wantMiss := []bool{
		false, // the top, first
		false, // rounds to the top; nothing earlier reaches it: lm-eval's argmax takes it
		true,  // ties with an earlier token, which argmax takes
		true,  // below the top
		false, // the top; earlier tokens round lower (-2.3 → -2.296875)
	}
	for i := range h.lp {
		if h.lp[i] != r(h.lp[i]) || h.topLP[i] != -2 {
			t.Errorf("slot %d: log-prob %v, top %v not rounded", i, h.lp[i], h.topLP[i])
		}
		if h.miss[i] != wantMiss[i] {
			t.Errorf("slot %d: miss %v, want %v", i, h.miss[i], wantMiss[i])
		}
	}
	if _, err := lpRoundOf("int8"); err == nil {
		t.Error("int8 accepted")
	}
}

// TestSoftmaxDTypeSums: with SoftmaxDType bfloat16 a request's log-prob is
// the bfloat16 rounding of the sum of its tokens' rounded log-probs, taken
// from the unrounded engine's per-token log-probs of the same requests;
// the engine's identity and fingerprint change with it.
func TestSoftmaxDTypeSums(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 64,
		Vocab: 256, MaxPositions: 256, BOS: 1, EOS: 2, Seed: 1, Out: dir}); err != nil {
		t.Fatal(err)
	}
	plain, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	half, err := Open(dir, Options{SoftmaxDType: "bfloat16"})
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	reqs := mcWorkload(7, 16, 40, 6, 256)
	ctxIDs, contIDs := make([][]int32, len(reqs)), make([][]int32, len(reqs))
	for i, q := range reqs {
		ctxIDs[i], contIDs[i] = q.ContextIDs, q.ContinuationIDs
	}
	tokens, err := plain.ScoreIDs(context.Background(), ctxIDs, contIDs, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := half.Loglikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := lpRoundOf("bfloat16")
	for i, s := range tokens {
		sum := 0.0
		for _, lp := range s.TokenLogProbs {
			sum += r(lp)
		}
		if want := r(sum); got[i].LogProb != want {
			t.Errorf("request %d: %v, want %v (unrounded %v)", i, got[i].LogProb, want, s.LogProb)
		}
	}
	for _, id := range []func(*Engine) (string, error){(*Engine).Identity, (*Engine).Fingerprint} {
		a, err1 := id(plain)
		b, err2 := id(half)
		if err1 != nil || err2 != nil || a == b {
			t.Errorf("identity or fingerprint the same with and without the rounding (%v, %v)", err1, err2)
		}
	}
}
