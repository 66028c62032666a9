package models

import (
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// quantGoldens are the checkpoints parity/quant/quant_golden.py wrote:
// GPTQ (4 and 8 bits, v1 and v2, desc_act, asym, a group size that does
// not divide down_proj's 160 inputs, per channel), AWQ GEMM and
// bitsandbytes 8-bit.
var quantGoldens = []string{
	"llama-gptq4-g32", "llama-gptq4-descact-asym", "qwen2-gptq4-v2-g64", "qwen2-gptq8-v2-descact",
	"llama-gptq8-chan", "llama-awq-g32", "qwen2-awq-g16", "llama-bnb8", "qwen2-bnb8",
}

// TestIntQuantDequantMatchesReference: every GPTQ, AWQ and 8-bit weight
// dequantizes bit for bit as the reference does (the NumPy dequantizer
// for GPTQ and AWQ, bitsandbytes' int8_vectorwise_dequant for 8-bit),
// into float32 and into bfloat16.
func TestIntQuantDequantMatchesReference(t *testing.T) {
	for _, name := range quantGoldens {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "quant", name)
			want := readDequantDigests(t, dir)
			cfg, set := openBnb(t, dir)
			if p := TensorProblems(cfg, set); len(p) != 0 {
				t.Fatalf("tensor check: %v", p)
			}
			if got := len(set.(*intQuantSet).Quantized()); got != len(want) || got != 14 {
				t.Fatalf("%d quantized weights, dequant.json has %d (want 14)", got, len(want))
			}
			for w, d := range want {
				f32, err := set.Float32(w)
				if err != nil {
					t.Fatal(err)
				}
				bf := make([]uint16, len(f32))
				if err := set.BF16Into(w, bf, nil); err != nil {
					t.Fatal(err)
				}
				if got := digestF32(f32); got != d["float32"] {
					t.Errorf("%s float32: %+v, reference %+v", w, got, d["float32"])
				}
				if got := digestBF16(bf); got != d["bfloat16"] {
					t.Errorf("%s bfloat16: %+v, reference %+v", w, got, d["bfloat16"])
				}
			}
		})
	}
}

// quantGen is one generate.jsonl line: transformers' greedy continuation.
type quantGen struct {
	ContextIDs []int32 `json:"context_ids"`
	Greedy     []int32 `json:"greedy"`
}

// TestIntQuantMatchTransformers scores the goldens dequantized at load to
// float32 against transformers' float32 forward of the dequantized model:
// max |Δ logprob_sum| ≤ 1e-4, the same argmax at every scored position,
// and the same 8-token greedy continuations.
func TestIntQuantMatchTransformers(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "quant", "requests.jsonl"))
	for _, name := range quantGoldens {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "quant", name)
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden.jsonl"))
			m := loadTestModel(t, dir, nil)
			got := m.score(t, reqs, -1)
			d := maxDiff(got, want)
			t.Logf("%s: max |Δ logprob_sum| = %.3g over %d requests", name, d, len(reqs))
			if d > 1e-4 {
				t.Errorf("max |Δ| = %g > 1e-4", d)
			}
			checkGreedyIDs(t, m, reqs, want)
			for _, g := range testutil.ReadJSONL[quantGen](t, filepath.Join(dir, "generate.jsonl")) {
				if out := m.greedy(t, g.ContextIDs, len(g.Greedy)); !equalIDs(out, g.Greedy) {
					t.Errorf("greedy after %v: %v, transformers %v", g.ContextIDs, out, g.Greedy)
				}
			}
		})
	}
}

// checkGreedyIDs checks the argmax at each scored position against the
// golden's greedy_ids.
func checkGreedyIDs(t *testing.T, m *testModel, reqs []scoreReq, want []goldenLine) {
	t.Helper()
	exec := m.argmaxExec(t)
	for i, r := range reqs {
		all := append(append([]int32{}, r.ContextIDs...), r.ContinuationIDs...)
		got := argmaxLast(t, exec, all[:len(all)-1], len(r.ContinuationIDs))
		if !equalIDs(got, want[i].GreedyIDs) {
			t.Errorf("request %d: argmax %v, transformers %v", i, got, want[i].GreedyIDs)
		}
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGPTQLoRAMatchesPeft evaluates a peft LoRA adapter over a GPTQ base
// (peft's usual setup: every projection), merged into the dequantized
// weights and separate in the graph, against PeftModel over transformers'
// dense dequantized model.
func TestGPTQLoRAMatchesPeft(t *testing.T) {
	checkLoRAOverQuantized(t, "quant", "llama-gptq4-g32")
}

// TestGPTQv1ZeroOffset: v1 ("gptq") stores each zero point minus one, so
// a stored 15 (a zero of 0, wrapped) reads back as 16, as gptqmodel's v1
// to v2 conversion gives; v2 reads it as stored. Codes unpack low bits
// first, 8-bit ones too.
func TestGPTQv1ZeroOffset(t *testing.T) {
	z := make([]int32, 8)
	unpackGPTQCols(z, []uint32{0x7654321F}, 4, true)
	if want := []int32{16, 2, 3, 4, 5, 6, 7, 8}; !equalIDs(z, want) {
		t.Errorf("v1 zeros %v, want %v", z, want)
	}
	unpackGPTQCols(z, []uint32{0x7654321F}, 4, false)
	if want := []int32{15, 1, 2, 3, 4, 5, 6, 7}; !equalIDs(z, want) {
		t.Errorf("v2 zeros %v, want %v", z, want)
	}
	codes := make([]uint8, 8) // qweight [1, 2] of 8-bit codes → [4, 2]
	unpackGPTQRows(codes, []uint32{0x04030201, 0x08070605}, 2, 8)
	if want := []uint8{1, 5, 2, 6, 3, 7, 4, 8}; string(codes) != string(want) {
		t.Errorf("8-bit codes %v, want %v", codes, want)
	}
}
