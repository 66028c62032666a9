package engine

import (
	"math"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
)

func TestArgmaxFirstOnTies(t *testing.T) {
	if got := argmax([]float32{1, 3, 3, 2}); got != 1 {
		t.Errorf("argmax = %d, want 1", got)
	}
	if got := argmax([]float32{1, 3, float32(math.NaN()), 2, float32(math.NaN())}); got != 2 {
		t.Errorf("argmax with NaNs = %d, want the first NaN's 2 (torch.argmax)", got)
	}
}

// TestSamplerFilters: top-k 1 and a tiny top-p are greedy; top-k keeps
// ties; top-p keeps the smallest top set reaching p.
func TestSamplerFilters(t *testing.T) {
	logits := []float32{0.5, 2, 1, 1.9, -1}
	for _, r := range []lm.GenerateRequest{
		{Temperature: 1, TopK: 1, Seed: 1},
		{Temperature: 1, TopP: 1e-6, Seed: 2},
	} {
		s := newSampler(r)
		for range 20 {
			if got := s.pick(logits); got != 1 {
				t.Fatalf("%+v picked %d, want the argmax 1", r, got)
			}
		}
	}
	s := newSampler(lm.GenerateRequest{Temperature: 1, TopK: 1})
	x := []float64{0.5, 2, 1, 2, -1}
	if keep := s.topKFilter(x); len(keep) != 2 || keep[0] != 1 || keep[1] != 3 {
		t.Errorf("top-k 1 with a tie kept %v, want [1 3]", keep)
	}
	// x = {3, 2, 1, 0}: softmax ≈ {0.644, 0.237, 0.087, 0.032}; top-p 0.8
	// keeps {0, 1} (0.881 ≥ 0.8).
	s.topP = 0.8
	if keep := s.topPFilter([]float64{3, 2, 1, 0}, []int32{0, 1, 2, 3}); len(keep) != 2 || keep[0] != 0 || keep[1] != 1 {
		t.Errorf("top-p 0.8 kept %v, want [0 1]", keep)
	}
	s.topP = 0.9 // 0.644+0.237 = 0.881 < 0.9: needs the third
	if keep := s.topPFilter([]float64{3, 2, 1, 0}, []int32{0, 1, 2, 3}); len(keep) != 3 {
		t.Errorf("top-p 0.9 kept %v, want 3 tokens", keep)
	}
}

// TestSamplerDistribution: frequencies follow softmax(logits/T) and a seed
// reproduces its sequence.
func TestSamplerDistribution(t *testing.T) {
	logits := []float32{1, 2, 0, 1.5}
	const temp, n = 0.7, 20000
	s := newSampler(lm.GenerateRequest{Temperature: temp, Seed: 42})
	counts := make([]int, len(logits))
	first := make([]int32, 50)
	for i := range n {
		id := s.pick(logits)
		counts[id]++
		if i < len(first) {
			first[i] = id
		}
	}
	sum := 0.0
	for _, l := range logits {
		sum += math.Exp(float64(l) / temp)
	}
	for i, l := range logits {
		p := math.Exp(float64(l)/temp) / sum
		if f := float64(counts[i]) / n; math.Abs(f-p) > 4*math.Sqrt(p*(1-p)/n)+1e-3 {
			t.Errorf("token %d: frequency %.4f, softmax %.4f", i, f, p)
		}
	}
	again := newSampler(lm.GenerateRequest{Temperature: temp, Seed: 42})
	for i, want := range first {
		if got := again.pick(logits); got != want {
			t.Fatalf("seed 42 draw %d: %d then %d", i, want, got)
		}
	}
}

// TestCheckSampling: NaN and infinities are rejected as bad input (NaN used
// to pass every "< 0" check and crash the sampler).
func TestCheckSampling(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, r := range []lm.GenerateRequest{{Temperature: nan}, {Temperature: inf}, {Temperature: -1},
		{Temperature: 1, TopP: nan}, {Temperature: 1, TopP: 1.5}, {Temperature: 1, TopK: -1}} {
		if err := checkSampling(r); !errs.IsBadInput(err) {
			t.Errorf("%+v: %v, want bad input", r, err)
		}
	}
	for _, r := range []lm.GenerateRequest{{}, {Temperature: 0.7, TopP: 0.9, TopK: 5}, {Temperature: 1, TopP: 1}} {
		if err := checkSampling(r); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}
