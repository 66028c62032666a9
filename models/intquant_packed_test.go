package models

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/testutil"
)

// quant4Packed is, for each 4-bit GPTQ and AWQ golden, how many of its 14
// weights the cpu backend keeps packed: all (desc_act's with their input
// columns permuted), but not qwen2-gptq4-v2-g64's two down_proj (groups of
// 64 do not divide their 160 inputs).
var quant4Packed = map[string]int{
	"llama-gptq4-g32": 14, "llama-gptq4-descact-asym": 14, "qwen2-gptq4-v2-g64": 12,
	"llama-awq-g32": 14, "qwen2-awq-g16": 14,
}

// TestGroupQuantQ4MatchesReference: each 4-bit GPTQ and AWQ weight that
// GroupQuant.Q4 packs dequantizes from its packed form (PackedQ4, the
// values the kernels multiply by) bit for bit as the reference
// dequantizer does, into float32 and rounded to bfloat16; the others say
// why they stay dequantized.
func TestGroupQuantQ4MatchesReference(t *testing.T) {
	for name, wantPacked := range quant4Packed {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "quant", name)
			want := readDequantDigests(t, dir)
			_, set := openBnb(t, dir)
			packed := 0
			for w, d := range want {
				g, err := set.(*intQuantSet).GroupQuant(w)
				if err != nil {
					t.Fatal(err)
				}
				q, why := g.Q4()
				if q == nil {
					t.Logf("%s: dequantized at load: %s", w, why)
					continue
				}
				packed++
				f32, bf := packedValues(t, q)
				if got := digestF32(f32); got != d["float32"] {
					t.Errorf("%s float32 from packed: %+v, reference %+v", w, got, d["float32"])
				}
				if got := digestBF16(bf); got != d["bfloat16"] {
					t.Errorf("%s bfloat16 from packed: %+v, reference %+v", w, got, d["bfloat16"])
				}
			}
			if packed != wantPacked {
				t.Errorf("%d weights packed, want %d", packed, wantPacked)
			}
		})
	}
}

// packedValues is q's packed form dequantized into float32 and, rounded
// in PackedQ4 (RoundBF16), as bfloat16 bits, its columns put back in input
// order (Q4Weight.Perm).
func packedValues(t *testing.T, q *Q4Weight) ([]float32, []uint16) {
	t.Helper()
	p, err := q.Packed()
	if err != nil {
		t.Fatal(err)
	}
	f32 := make([]float32, q.Shape[0]*q.Shape[1])
	p.Dequantize(f32)
	r := *p
	r.RoundBF16 = true
	tmp := make([]float32, len(f32))
	r.Dequantize(tmp)
	f32, tmp = unpermuteCols(f32, q), unpermuteCols(tmp, q)
	bf := make([]uint16, len(tmp))
	for i, v := range tmp {
		bf[i] = uint16(math.Float32bits(v) >> 16)
	}
	return f32, bf
}

// unpermuteCols returns w [out, in] (q's packed column order) with column
// j moved to input q.Perm[j]; w itself without a Perm.
func unpermuteCols(w []float32, q *Q4Weight) []float32 {
	if q.Perm == nil {
		return w
	}
	out, in := q.Shape[0], q.Shape[1]
	r := make([]float32, len(w))
	for o := range out {
		for j, i := range q.Perm {
			r[o*in+int(i)] = w[o*in+j]
		}
	}
	return r
}

// TestGroupQuantQ4Layout: a small asymmetric weight packs with input i of
// output o in the high nibble of byte (o·In+i)/2 when i is even, its
// offsets −scale·zero (so a code equal to the zero is 0), and every
// value is Dequantize's; a shuffled g_idx packs its inputs in group order
// (Perm); groups of unequal sizes and 8-bit codes stay dequantized.
func TestGroupQuantQ4Layout(t *testing.T) {
	// W [2, 4], groups of 2: Codes [In, Out].
	g := &GroupQuant{Out: 2, In: 4, Bits: 4, Codes: []uint8{1, 2, 3, 4, 5, 6, 7, 8},
		Zeros: []int32{1, 16, 3, 2}, Scales: []float32{0.5, 0.25, 2, 1}, GIdx: []int32{0, 0, 1, 1}}
	q, why := g.Q4()
	if q == nil {
		t.Fatalf("not packed: %s", why)
	}
	if want := []byte{0x13, 0x57, 0x24, 0x68}; string(q.Codes) != string(want) {
		t.Errorf("codes % x, want % x", q.Codes, want)
	}
	if want := []float32{-0.5, -6, -4, -2}; !equalF32(q.Offset, want) || !equalF32(q.Absmax, []float32{0.5, 2, 0.25, 1}) {
		t.Errorf("absmax %v offsets %v, want [0.5 2 0.25 1] %v", q.Absmax, q.Offset, want)
	}
	dense := make([]float32, 8)
	g.Dequantize(dense, nil)
	if got, _ := packedValues(t, q); !equalF32(got, dense) {
		t.Errorf("packed values %v, dequantized %v", got, dense)
	}
	g.GIdx = []int32{1, 0, 1, 0} // inputs 1, 3 in group 0; 0, 2 in group 1
	q, why = g.Q4()
	if q == nil {
		t.Fatalf("shuffled g_idx not packed: %s", why)
	}
	if want := []int32{1, 3, 0, 2}; !equalIDs(q.Perm, want) {
		t.Errorf("perm %v, want %v", q.Perm, want)
	}
	if want := []byte{0x37, 0x15, 0x48, 0x26}; string(q.Codes) != string(want) {
		t.Errorf("permuted codes % x, want % x", q.Codes, want)
	}
	g.Dequantize(dense, nil)
	if got, _ := packedValues(t, q); !equalF32(got, dense) {
		t.Errorf("permuted packed values %v, dequantized %v", got, dense)
	}
	g.GIdx = []int32{0, 0, 0, 1}
	if q, _ := g.Q4(); q != nil {
		t.Error("groups of unequal sizes packed")
	}
	g.GIdx, g.Bits = []int32{0, 0, 1, 1}, 8
	if q, _ := g.Q4(); q != nil {
		t.Error("8-bit codes packed")
	}
}

// TestGroupQuantQ4Exactness: random 4-bit weights pack bit-identical to
// Dequantize with positive float16-valued scales (always packed) and with
// float32 ones of either sign (packed only where every code is exact, the
// sign of a zero included; most are not).
func TestGroupQuantQ4Exactness(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 40))
	refused := 0
	for trial := range 200 {
		g := randGroupQuant(rng, 8, 64, 16, trial%2 == 1)
		q, _ := g.Q4()
		if q == nil {
			if trial%2 == 0 {
				t.Fatalf("trial %d: float16 scales not packed", trial)
			}
			refused++
			continue
		}
		dense := make([]float32, g.Out*g.In)
		g.Dequantize(dense, nil)
		if got, _ := packedValues(t, q); !equalF32(got, dense) {
			t.Fatalf("trial %d: packed values differ from Dequantize", trial)
		}
	}
	if refused == 0 {
		t.Error("no weight with float32 scales refused: int4Exact checks nothing")
	}
}

// randGroupQuant is a random 4-bit GroupQuant with zeros 0…16 and
// positive scales of float16's 11 bits (wide: any float32, either sign).
func randGroupQuant(rng *rand.Rand, out, in, group int, wide bool) *GroupQuant {
	groups := in / group
	g := &GroupQuant{Out: out, In: in, Bits: 4, Codes: make([]uint8, in*out), Zeros: make([]int32, groups*out),
		Scales: make([]float32, groups*out), GIdx: make([]int32, in)}
	for i := range g.Codes {
		g.Codes[i] = uint8(rng.IntN(16))
	}
	for i := range g.Zeros {
		g.Zeros[i] = int32(rng.IntN(17))
		s := float32(rng.NormFloat64() * 0.01)
		if !wide {
			s = math.Float32frombits(math.Float32bits(s) &^ 0x8000_1FFF)
		}
		g.Scales[i] = s
	}
	for i := range g.GIdx {
		g.GIdx[i] = int32(i / group)
	}
	return g
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestIntQuantPackedMatchesDequantized: the 4-bit GPTQ and AWQ goldens on
// the cpu device keep the weights quant4Packed counts packed and score,
// in float32 and in weight-only bf16, within q4PackedBound per token of
// the same checkpoint dequantized at load, with the same 8-token greedy
// continuations; in float32 within 1e-4 of transformers, its argmax at
// every scored position and its greedy generations.
func TestIntQuantPackedMatchesDequantized(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "quant", "requests.jsonl"))
	for name, wantPacked := range quant4Packed {
		for _, wdt := range []dtypes.DType{dtypes.Float32, dtypes.BFloat16} {
			t.Run(name+"/"+wdt.String(), func(t *testing.T) {
				dir := filepath.Join(testdata, "quant", name)
				packed, got := checkPackedVsDense(t, dir, wdt, wantPacked, reqs)
				if wdt == dtypes.Float32 {
					checkTransformers(t, packed, dir, reqs, got)
				}
			})
		}
	}
}

// checkTransformers checks scores got of m (the golden in dir) against
// transformers: max |Δ logprob_sum| ≤ 1e-4, the argmax at each scored
// position, and the greedy generations of generate.jsonl.
func checkTransformers(t *testing.T, m *testModel, dir string, reqs []scoreReq, got [][]float64) {
	t.Helper()
	want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden.jsonl"))
	d := maxDiff(got, want)
	t.Logf("max |Δ logprob_sum| = %.3g vs transformers", d)
	if d > 1e-4 {
		t.Errorf("max |Δ| = %g > 1e-4", d)
	}
	checkGreedyIDs(t, m, reqs, want)
	for _, g := range testutil.ReadJSONL[quantGen](t, filepath.Join(dir, "generate.jsonl")) {
		if out := m.greedy(t, g.ContextIDs, len(g.Greedy)); !equalIDs(out, g.Greedy) {
			t.Errorf("greedy after %v: %v, transformers %v", g.ContextIDs, out, g.Greedy)
		}
	}
}

// TestPermutedParam: a desc_act weight packed with permuted input columns
// is, read through Param (any use other than linear's product), the
// weight dequantized at load bit for bit: its columns are put back.
func TestPermutedParam(t *testing.T) {
	dir := filepath.Join(testdata, "quant", "llama-gptq4-descact-asym")
	m, _ := loadBnbGocpu(t, dir, dtypes.Float32, false)
	_, set := openBnb(t, dir)
	for _, name := range []string{"model.layers.0.mlp.down_proj.weight", "model.layers.1.self_attn.q_proj.weight"} {
		if w, _ := paramPermutedVars(m.ctx, name); w == nil {
			t.Fatalf("%s is not stored permuted", name)
		}
		out, err := context.ExecOnce(m.backend, m.ctx, func(ctx *context.Context, g *Graph) *Node { return Param(ctx, g, name) })
		if err != nil {
			t.Fatal(err)
		}
		want, err := set.Float32(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := tensors.MustCopyFlatData[float32](out); !equalF32(got, want) {
			t.Errorf("Param(%s) differs from the weight dequantized at load", name)
		}
	}
}

// paramPermutedVars returns name's permuted weight and perm variables.
func paramPermutedVars(ctx *context.Context, name string) (w, perm *context.Variable) {
	scope, _ := VariablePath(name)
	return ctx.GetVariableByScopeAndName(scope, permutedVar), ctx.GetVariableByScopeAndName(scope, permVar)
}
