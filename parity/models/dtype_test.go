package hfparity_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
)

// The half-precision goldens: transformers on the CPU in torch.bfloat16 and
// torch.float16 (eager attention, weights converted from the float32
// checkpoint to nearest), log-softmax in float64 of the logits it returns
// in that dtype (parity/models/hf_logprobs.py --dtype, make_goldens.sh;
// parity/archs/arch_golden.py for archsDir), on requests.jsonl followed by
// the model's requests_greedy.jsonl (each context with the float32 model's
// greedy continuation: is_greedy true unless the half precision moves it).
const archsDir = "../../models/testdata/archs"

// dtypeEps is each dtype's unit roundoff ε: the largest relative error of
// one rounding to nearest (8 and 11 significant bits).
var dtypeEps = map[string]float64{engine.DTypeBFloat16: 0x1p-8, engine.DTypeFloat16: 0x1p-11}

// boundK is K in the bound this test holds goeval to, per request,
//
//	|Δ logprob_sum| ≤ K·ε·Σᵢ Mᵢ,   K = 4·t·√(30·L + 3),
//
// where Mᵢ is the largest |logit| at scored position i (the reference's)
// and L the number of layers. Both engines round the same weights the same
// way (to nearest from the float32 checkpoint), so what differs is where
// each rounds its activations. The derivation:
//
//   - a token's log-prob z_t − logsumexp(z) moves by at most
//     |δz_t| + |Σⱼ pⱼ δzⱼ| ≤ 2·maxⱼ|δzⱼ|: a factor 2;
//   - each engine's logits carry their own rounding error and the two do
//     not cancel: a factor 2;
//   - one engine's relative error of the logits: the n roundings on the
//     longest path from the embeddings, each ≤ ε relative, independent and
//     of mean zero when rounding to nearest, add in quadrature (the
//     square-root rule of rounding-error statistics), and the normalised
//     blocks pass a relative perturbation on at about its size: √n·ε,
//     relative to the logits' scale Mᵢ. n counts 30 per layer (Gemma 2 has
//     the most, 22: its norms, the projections, the rotary product's three,
//     the scores, their scaling and soft-cap's three, the softmax's
//     result, probabilities·V, the activation and gating products, the
//     residual additions) and 3 after the last (the final norm, the LM
//     head);
//   - t = 2 where the engine converts by truncation rather than to
//     nearest (error < 2ε, and biased): GoMLX's simplego in bfloat16;
//     t = 1 elsewhere (XLA; bfloat16 and float16 on the pure-Go backend,
//     which computes in float32 on weights rounded to nearest: only the
//     reference's activation roundings remain);
//   - the tokens of a request share their context's errors, so their
//     bounds add (Σᵢ, not a square root).
//
// Per token the same argument gives bᵢ = K·ε·Mᵢ, which also bounds how
// much the gap between two tokens' log-probs moves: is_greedy may differ
// from the reference's only where that gap is within bᵢ (a near tie).
// Measured when it was written: at most 6.1·ε·ΣM in bfloat16 (simplego,
// then the CPU's bfloat16 backend), 1.75·ε·ΣM in bfloat16 on gocpu
// (weight-only), 1.7·ε·ΣM in float16 (gocpu); the float32 goldens agree to
// 1e-5.
func boundK(dtype, backend string, layers int) float64 {
	t := 1.0
	if dtype == engine.DTypeBFloat16 && (backend == "go" || strings.HasPrefix(backend, "go:")) {
		t = 2
	}
	return 4 * t * math.Sqrt(30*float64(layers)+3)
}

// dtypeRef is one line of a half-precision golden.
type dtypeRef struct {
	LogProbSum    float64      `json:"logprob_sum"`
	IsGreedy      bool         `json:"is_greedy"`
	TokenLogProbs []float64    `json:"token_logprobs"`
	TokenIsGreedy []bool       `json:"token_is_greedy"`
	LogitAbsMax   []float64    `json:"logit_absmax"`
	Top2          [][2]float64 `json:"top2_logprobs"`
}

// TestTransformersDTypeGoldens scores the transformers goldens' requests
// with goeval in bfloat16 and float16 on the test's device (the pure-Go
// device unless GOEVAL_HFPARITY_DEVICE names another; the engine picks the
// backend for the dtype there) and holds each request to boundK's bound
// and is_greedy to the reference's except at near ties.
func TestTransformersDTypeGoldens(t *testing.T) {
	bin := buildGoeval(t)
	for _, dtype := range []string{engine.DTypeBFloat16, engine.DTypeFloat16} {
		t.Run(dtype, func(t *testing.T) {
			for _, name := range []string{"llama", "mistral-swa", "qwen2", "qwen3", "llama3-rope"} {
				t.Run(name, func(t *testing.T) {
					dir := filepath.Join(goldenDir, name)
					checkDType(t, name, synth(t, bin, dir), dtype, filepath.Join(dir, "reference_"+dtype+".jsonl"),
						filepath.Join(dir, "requests.jsonl"), filepath.Join(dir, "requests_greedy.jsonl"))
				})
			}
			for _, name := range []string{"phi", "phi3", "phi35", "gemma2", "gemma3", "gemma3mm", "mixtral", "qwen2moe", "qwen3moe", "olmoe"} {
				t.Run(name, func(t *testing.T) {
					dir := filepath.Join(archsDir, name)
					checkDType(t, name, dir, dtype, filepath.Join(dir, "golden_"+dtype+".jsonl"),
						filepath.Join(archsDir, "requests.jsonl"), filepath.Join(dir, "requests_greedy.jsonl"))
				})
			}
		})
	}
}

// checkDType scores the requests of reqPaths, in order, with model name
// (in dir) in dtype and compares them with refPath.
func checkDType(t *testing.T, name, dir, dtype, refPath string, reqPaths ...string) {
	var reqs []request
	for _, p := range reqPaths {
		reqs = append(reqs, testutil.ReadJSONL[request](t, p)...)
	}
	refs := testutil.ReadJSONL[dtypeRef](t, refPath)
	if len(reqs) == 0 || len(reqs) != len(refs) {
		t.Fatalf("%s: %d requests, %d references", refPath, len(reqs), len(refs))
	}
	cfg, err := models.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	// float32 log-softmax (lm-eval's softmax_dtype=float32): the goldens hold
	// transformers' logits' float64 log-softmax; lm-eval's rounding of
	// log-probs to the dtype is engine/lpround_test.go's.
	e, err := engine.Open(dir, engine.Options{Device: os.Getenv("GOEVAL_HFPARITY_DEVICE"), DType: dtype, SoftmaxDType: "float32"})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	defer e.Close()
	in := make([]lm.LoglikelihoodRequest, len(reqs))
	for i, r := range reqs {
		in[i] = lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
	}
	got, err := e.Loglikelihood(context.Background(), in)
	if err != nil {
		t.Fatalf("Loglikelihood: %v", err)
	}
	if e.DType() != dtype || len(got) != len(refs) {
		t.Fatalf("engine dtype %s, %d results for %d requests", e.DType(), len(got), len(refs))
	}
	k, eps := boundK(dtype, e.Stats().Backend, cfg.NumHiddenLayers), dtypeEps[dtype]
	worst, worstRatio, greedy := 0.0, 0.0, 0
	var ties, flips []string
	for i, ref := range refs {
		scale := 0.0 // Σᵢ Mᵢ
		for _, m := range ref.LogitAbsMax {
			scale += m
		}
		d := math.Abs(got[i].LogProb - ref.LogProbSum)
		worst, worstRatio = math.Max(worst, d), math.Max(worstRatio, d/(eps*scale))
		if !(d <= k*eps*scale) {
			t.Errorf("request %d (%d tokens): logprob %.6f, transformers %.6f, |Δ| %.3g > %.3g = %.1f·ε·ΣM",
				i+1, len(ref.TokenLogProbs), got[i].LogProb, ref.LogProbSum, d, k*eps*scale, k)
		}
		if got[i].NumTokens != len(ref.TokenLogProbs) {
			t.Errorf("request %d: %d tokens scored, want %d", i+1, got[i].NumTokens, len(ref.TokenLogProbs))
		}
		if ref.IsGreedy {
			greedy++
		}
		tie := nearTie(ref, k*eps)
		if tie != "" {
			ties = append(ties, fmt.Sprint(i+1))
		}
		switch {
		case got[i].IsGreedy != ref.IsGreedy && tie == "":
			t.Errorf("request %d: is_greedy %v, transformers %v, and no near tie", i+1, got[i].IsGreedy, ref.IsGreedy)
		case got[i].IsGreedy != ref.IsGreedy:
			flips = append(flips, fmt.Sprintf("%d (is_greedy %v, transformers %v: %s)", i+1, got[i].IsGreedy, ref.IsGreedy, tie))
		}
	}
	t.Logf("%s %s on %s: %d requests (%d greedy), max |Δ| %.3g = %.2f·ε·ΣM (bound K = %.1f); near ties: %d (%s); is_greedy differs at: %s",
		name, e.DType(), e.Stats().Backend, len(refs), greedy, worst, worstRatio, k, len(ties), orNone(ties), orNone(flips))
}

// nearTie describes why ref's is_greedy may flip under per-token errors of
// kε·Mᵢ ("" if it may not): a greedy request can stop being greedy where
// its two best log-probs are that close; a non-greedy one can become
// greedy only if every position it misses is that close to its best.
func nearTie(ref dtypeRef, kε float64) string {
	var close []string
	for i, greedy := range ref.TokenIsGreedy {
		b := kε * ref.LogitAbsMax[i]
		if greedy {
			if gap := ref.Top2[i][0] - ref.Top2[i][1]; ref.IsGreedy && gap <= b {
				close = append(close, fmt.Sprintf("token %d: best two %.3g apart ≤ %.3g", i, gap, b))
			}
			continue
		}
		gap := ref.Top2[i][0] - ref.TokenLogProbs[i]
		if gap > b {
			return "" // a miss that no error within the bound makes the argmax
		}
		close = append(close, fmt.Sprintf("token %d: %.3g below the best ≤ %.3g", i, gap, b))
	}
	return strings.Join(close, ", ")
}

// orNone is the list, or "none".
func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, "; ")
}
