package models

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// int8Bases are the float checkpoints parity/bnb/int8_golden.py loaded
// with load_in_8bit for each 8-bit golden, and the llm_int8_threshold.
var int8Bases = map[string]struct {
	dir       string
	threshold float64
}{
	"llama-t0": {filepath.Join(testdata, "bnb_load", "llama"), 0},
	"qwen2-t6": {filepath.Join(testdata, "bnb_int8", "qwen2-t6", "float"), 6},
}

// TestLoadIn8BitForm: a float checkpoint quantized at load holds the
// weights transformers' load_in_8bit quantizes (the 4-bit targets) with
// codes and SCB bit-identical to what its save_pretrained wrote.
func TestLoadIn8BitForm(t *testing.T) {
	for _, name := range int8Goldens {
		t.Run(name, func(t *testing.T) {
			base := int8Bases[name]
			q, err := LoadIn8Bit(base.threshold, nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadConfig(base.dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := openLoadIn8Bit(base.dir, cfg, q)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			_, set := openBnb(t, filepath.Join(testdata, "bnb_int8", name))
			want := set.(*intQuantSet)
			if g, w := got.Quantized(), want.Quantized(); !slices.Equal(g, w) {
				t.Fatalf("quantized %v, transformers %v", g, w)
			}
			for _, w := range want.Quantized() {
				a, _, err := got.rowInt8(w)
				if err != nil {
					t.Fatal(err)
				}
				b, err := want.RowInt8(w)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a.Codes, b.Codes) || !slices.Equal(a.SCB, b.SCB) {
					t.Errorf("%s: codes or SCB differ from transformers' saved ones", w)
				}
			}
		})
	}
}

// TestLoadIn8BitMatchesTransformers scores each float base loaded with
// load_in_8bit against the transformers golden of the same model (saved
// and loaded back, which bitsandbytes computes as it computes the
// load_in_8bit model): max |Δ logprob_sum| ≤ 1e-4, the same argmax.
func TestLoadIn8BitMatchesTransformers(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "bnb_int8", "requests.jsonl"))
	for _, name := range int8Goldens {
		t.Run(name, func(t *testing.T) {
			base := int8Bases[name]
			q, err := LoadIn8Bit(base.threshold, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(testdata, "bnb_int8", name, "golden.jsonl"))
			m := loadInt8Model(t, base.dir, LoadOptions{LoadIn8Bit: q})
			d := maxDiff(m.score(t, reqs, -1), want)
			t.Logf("max |Δ logprob_sum| = %.3g", d)
			if d > 1e-4 {
				t.Errorf("max |Δ| = %g > 1e-4", d)
			}
			checkGreedyIDs(t, m, reqs, want)
		})
	}
}

// TestLoadIn8BitSkipQuantizesHead: load_in_8bit with llm_int8_skip_modules
// quantizes the untied Llama base's lm_head too and leaves the named
// modules float, as transformers 5.23 does (golden_skip.jsonl: its
// load_in_8bit with llm_int8_skip_modules=["down_proj"], threshold 0):
// max |Δ logprob_sum| ≤ 1e-4, the same argmax.
func TestLoadIn8BitSkipQuantizesHead(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "bnb_int8", "requests.jsonl"))
	q, err := LoadIn8Bit(0, []string{"down_proj"})
	if err != nil {
		t.Fatal(err)
	}
	want := testutil.ReadJSONL[goldenLine](t, filepath.Join(testdata, "bnb_int8", "llama-t0", "golden_skip.jsonl"))
	m := loadInt8Model(t, int8Bases["llama-t0"].dir, LoadOptions{LoadIn8Bit: q})
	d := maxDiff(m.score(t, reqs, -1), want)
	t.Logf("max |Δ logprob_sum| = %.3g", d)
	if d > 1e-4 {
		t.Errorf("max |Δ| = %g > 1e-4", d)
	}
	checkGreedyIDs(t, m, reqs, want)
}
