package engine

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/goeval/goeval/lm"
)

// Sampling happens on the host, from each row's f32 logits, with one RNG
// per request (PCG seeded with the request's Seed). A request's draws
// depend only on its own logits and seed, so its output is the same
// whatever else is in the batch or how the batch is sized (the logits of a
// row do not depend on the other rows).
//
// The warpers follow Hugging Face's order and semantics in float64:
// temperature, then top-k (ties with the k-th logit are kept), then top-p
// (TopPLogitsWarper: drop the lowest tokens whose cumulative probability is
// ≤ 1 − top_p, always keeping the most likely one). Greedy (temperature 0)
// is a plain argmax, ties to the lowest id as torch.argmax (a NaN wins, as
// there).

// sampler draws tokens for one request; nil means greedy.
type sampler struct {
	temp, topP float64
	topK       int
	seed       uint64
	rng        *rand.Rand
}

// pcgStream is the PCG stream constant shared by all requests (the seed
// picks the sequence).
const pcgStream = 0x9e3779b97f4a7c15

// newSampler returns the sampler of a request, or nil for greedy.
func newSampler(r lm.GenerateRequest) *sampler {
	if r.Temperature <= 0 {
		return nil
	}
	s := &sampler{temp: float64(r.Temperature), topP: float64(r.TopP), topK: r.TopK, seed: r.Seed}
	s.reset()
	return s
}

// reset starts the request's draws again from its seed (nil: greedy, no
// draws).
func (s *sampler) reset() {
	if s != nil {
		s.rng = rand.New(rand.NewPCG(s.seed, pcgStream))
	}
}

// argmax returns the index of the largest logit (the first one on ties),
// or of the first NaN, as torch.argmax and the decode graph's ArgMax on
// goeval's backend (greedy.go) do.
func argmax(logits []float32) int32 {
	best := 0
	for i, v := range logits {
		if v != v {
			return int32(i)
		}
		if v > logits[best] {
			best = i
		}
	}
	return int32(best)
}

// pick chooses the next token from one row's logits.
func (s *sampler) pick(logits []float32) int32 {
	if s == nil {
		return argmax(logits)
	}
	x := make([]float64, len(logits))
	for i, v := range logits {
		x[i] = float64(v) / s.temp
	}
	keep := s.topKFilter(x)
	keep = s.topPFilter(x, keep)
	return s.draw(x, keep)
}

// topKFilter returns the candidate ids: all of them, or those whose value
// is ≥ the k-th largest.
func (s *sampler) topKFilter(x []float64) []int32 {
	thr := math.Inf(-1)
	if s.topK > 0 && s.topK < len(x) {
		sorted := slices.Clone(x)
		slices.Sort(sorted)
		thr = sorted[len(sorted)-s.topK]
	}
	keep := make([]int32, 0, len(x))
	for i, v := range x {
		if v >= thr {
			keep = append(keep, int32(i))
		}
	}
	return keep
}

// topPFilter applies nucleus filtering to the candidates.
func (s *sampler) topPFilter(x []float64, keep []int32) []int32 {
	if s.topP <= 0 || s.topP >= 1 || len(keep) <= 1 {
		return keep
	}
	asc := slices.Clone(keep)
	slices.SortStableFunc(asc, func(a, b int32) int {
		if x[a] != x[b] {
			if x[a] < x[b] {
				return -1
			}
			return 1
		}
		return int(b - a) // ties: the higher id first, so the lower id is kept
	})
	probs := softmaxOf(x, asc)
	cum := 0.0
	cut := 0
	for i, p := range probs[:len(probs)-1] { // the top token is always kept
		cum += p
		if cum > 1-s.topP {
			break
		}
		cut = i + 1
	}
	out := asc[cut:]
	slices.Sort(out)
	return out
}

// draw samples one id from softmax(x) restricted to keep.
func (s *sampler) draw(x []float64, keep []int32) int32 {
	probs := softmaxOf(x, keep)
	u := s.rng.Float64()
	cum := 0.0
	for i, p := range probs {
		cum += p
		if u < cum {
			return keep[i]
		}
	}
	return keep[len(keep)-1] // rounding: u ≥ Σp
}

// softmaxOf returns softmax over x[ids], in the order of ids.
func softmaxOf(x []float64, ids []int32) []float64 {
	m := math.Inf(-1)
	for _, i := range ids {
		m = max(m, x[i])
	}
	p := make([]float64, len(ids))
	sum := 0.0
	for j, i := range ids {
		p[j] = math.Exp(x[i] - m)
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
	return p
}
