package models

import (
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/internal/testutil"
)

// loadBnbGocpu loads a 4-bit golden on goeval's pure-Go backend in
// float32 (weights held in wdt: Float32, or BFloat16 for weight-only
// bf16), its weights packed or (dequant) dequantized at load, and returns
// the model and how many variables hold packed 4-bit weights.
func loadBnbGocpu(t *testing.T, dir string, wdt dtypes.DType, dequant bool) (*testModel, int) {
	t.Helper()
	b, err := gocpu.New("threads=2")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(b, dir, LoadOptions{DType: dtypes.Float32, WeightDType: wdt, Dequantize4Bit: dequant})
	if err != nil {
		t.Fatal(err)
	}
	m := &testModel{backend: b, ctx: l.Context, model: l.Model}
	return m, countPackedQ4(t, m)
}

// q4PackedBound is the largest per-token log-prob difference allowed
// between packed 4-bit compute and the weights dequantized at load: the
// products agree to f32 rounding (gemm.MatMulQ4 sums in another order
// than MatMul), which through the models' layers reaches 7.6e-6 with the
// AVX-512 kernels and 1.24e-5 with the AVX2 ones (TestLoRAOverPackedQ4,
// llama-nf4-dq, 2026-11-29; a fifth of the 1e-4 against the references).
const q4PackedBound = 2e-5

// TestBnbPackedMatchesTransformers: the 4-bit goldens loaded on the cpu
// device keep their 14 projections packed (nf4 and fp4, with and without
// double quantization) and still score within 1e-4 of transformers with
// its argmax at every scored position; against the same checkpoint
// dequantized at load (LoadOptions.Dequantize4Bit), in float32 and in
// weight-only bf16 (the packed values rounded to bfloat16 as the
// dequantized ones are), per-token log-probs agree within q4PackedBound
// and 8-token greedy continuations (one forward per token) are the same.
func TestBnbPackedMatchesTransformers(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "bnb", "requests.jsonl"))
	for _, name := range bnbGoldens {
		for _, wdt := range []dtypes.DType{dtypes.Float32, dtypes.BFloat16} {
			t.Run(name+"/"+wdt.String(), func(t *testing.T) {
				dir := filepath.Join(testdata, "bnb", name)
				packed, got := checkPackedVsDense(t, dir, wdt, 14, reqs)
				if wdt != dtypes.Float32 {
					return
				}
				want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden.jsonl"))
				d := maxDiff(got, want)
				t.Logf("max |Δ logprob_sum| = %.3g vs transformers", d)
				if d > 1e-4 {
					t.Errorf("max |Δ| = %g > 1e-4", d)
				}
				checkGreedyIDs(t, packed, reqs, want)
			})
		}
	}
}

// checkPackedVsDense loads the 4-bit checkpoint dir on the cpu device
// twice, its weights kept packed and dequantized at load, checks that
// wantPacked weights are packed in the first and none in the second, that
// per-token log-probs of reqs agree within q4PackedBound and that 8-token
// greedy continuations of the first four are the same; it returns the
// packed model and its scores.
func checkPackedVsDense(t *testing.T, dir string, wdt dtypes.DType, wantPacked int, reqs []scoreReq) (*testModel, [][]float64) {
	t.Helper()
	packed, np := loadBnbGocpu(t, dir, wdt, false)
	dense, nd := loadBnbGocpu(t, dir, wdt, true)
	if np != wantPacked || nd != 0 {
		t.Fatalf("%d packed 4-bit weights (want %d), %d with Dequantize4Bit (want 0)", np, wantPacked, nd)
	}
	got := packed.score(t, reqs, -1)
	dd := maxDiffRuns(got, dense.score(t, reqs, -1))
	t.Logf("max per-token |Δ| = %.3g vs dequantized at load", dd)
	if dd > q4PackedBound {
		t.Errorf("packed vs dequantized at load: max per-token |Δ| = %g > %g", dd, q4PackedBound)
	}
	for i, r := range reqs[:min(4, len(reqs))] {
		if a, b := packed.greedy(t, r.ContextIDs, 8), dense.greedy(t, r.ContextIDs, 8); !equalIDs(a, b) {
			t.Errorf("request %d: greedy %v packed, %v dequantized at load", i, a, b)
		}
	}
	return packed, got
}

// TestDequantize4BitFits: with Dequantize4BitFits, a 4-bit checkpoint is
// dequantized at load when its dense weights fit the bytes allowed (the
// 14 projections' values × 4 bytes in float32) and stays packed when
// they do not, by a byte; Dequantize4Bit dequantizes whatever the budget.
func TestDequantize4BitFits(t *testing.T) {
	dir := filepath.Join(testdata, "bnb", "llama-nf4-dq")
	_, set := openBnb(t, dir)
	dense := dequantized4BitBytes(set, LoadOptions{DType: dtypes.Float32})
	if dense == 0 {
		t.Fatal("no 4-bit bytes counted")
	}
	for _, c := range []struct {
		fits    int64
		dequant bool
		packed  bool
	}{{dense - 1, false, true}, {dense, false, false}, {0, false, true}, {1, true, false}} {
		b, err := gocpu.New("threads=2")
		if err != nil {
			t.Fatal(err)
		}
		l, err := Load(b, dir, LoadOptions{DType: dtypes.Float32, Dequantize4Bit: c.dequant, Dequantize4BitFits: c.fits})
		if err != nil {
			t.Fatal(err)
		}
		n := countPackedQ4(t, &testModel{backend: b, ctx: l.Context, model: l.Model})
		if (n > 0) != c.packed {
			t.Errorf("fits %d of %d bytes, dequantize %v: %d packed weights, want packed %v", c.fits, dense, c.dequant, n, c.packed)
		}
	}
}
