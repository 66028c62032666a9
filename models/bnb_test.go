package models

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/testutil"
)

// bnbGoldens are the checkpoints parity/bnb/bnb_golden.py quantized with
// transformers + bitsandbytes.
var bnbGoldens = []string{"llama-nf4-dq", "llama-fp4", "qwen2-nf4", "qwen2-fp4-dq-bf16"}

// bnbDigest is one dequant.json entry: SHA-256 of the little-endian bytes
// and the float64 sum.
type bnbDigest struct {
	SHA256 string  `json:"sha256"`
	Sum    float64 `json:"sum"`
}

// openBnb opens a checkpoint (a golden one) as Load does.
func openBnb(t *testing.T, dir string) (*Config, Tensors) {
	t.Helper()
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := OpenTensors(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return cfg, set
}

// readDequantDigests reads dir's dequant.json: the reference digests of
// each quantized weight, by weight name and dtype.
func readDequantDigests(t *testing.T, dir string) map[string]map[string]bnbDigest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "dequant.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]map[string]bnbDigest
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestBnbDequantMatchesBitsandbytes: every 4-bit weight of the goldens
// (nf4 and fp4, with and without double quantization, float32 and
// bfloat16 quant states) dequantizes bit for bit as bitsandbytes'
// dequantize_4bit does, into float32 (Float32) and into bfloat16
// (BF16Into, the pure-Go backend's weight-only bf16).
func TestBnbDequantMatchesBitsandbytes(t *testing.T) {
	for _, name := range bnbGoldens {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "bnb", name)
			want := readDequantDigests(t, dir)
			_, set := openBnb(t, dir)
			if got := len(set.(*bnbSet).Quantized()); got != len(want) || got == 0 {
				t.Fatalf("%d quantized weights, dequant.json has %d", got, len(want))
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
					t.Errorf("%s float32: %+v, bitsandbytes %+v", w, got, d["float32"])
				}
				if got := digestBF16(bf); got != d["bfloat16"] {
					t.Errorf("%s bfloat16: %+v, bitsandbytes %+v", w, got, d["bfloat16"])
				}
			}
		})
	}
}

func digestF32(v []float32) bnbDigest {
	b, s := make([]byte, 4*len(v)), 0.0
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
		s += float64(f)
	}
	h := sha256.Sum256(b)
	return bnbDigest{hex.EncodeToString(h[:]), s}
}

func digestBF16(v []uint16) bnbDigest {
	b, s := make([]byte, 2*len(v)), 0.0
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
		s += float64(math.Float32frombits(uint32(x) << 16))
	}
	h := sha256.Sum256(b)
	return bnbDigest{hex.EncodeToString(h[:]), s}
}

// TestBnbMatchTransformers scores the 4-bit goldens (dequantized at load
// to float32) against transformers' forward of the quantized model on the
// CPU in float32: max |Δ logprob_sum| ≤ 1e-4.
func TestBnbMatchTransformers(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "bnb", "requests.jsonl"))
	for _, name := range bnbGoldens {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(testdata, "bnb", name)
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden.jsonl"))
			d := maxDiff(loadTestModel(t, dir, nil).score(t, reqs, -1), want)
			t.Logf("%s: max |Δ logprob_sum| = %.3g over %d requests", name, d, len(reqs))
			if d > 1e-4 {
				t.Errorf("max |Δ| = %g > 1e-4", d)
			}
		})
	}
}

// TestBnbLoRAMatchesPeft evaluates a QLoRA-style adapter (peft LoRA on
// every 4-bit projection) on the base it was trained on, merged into the
// dequantized weights and separate in the graph, against PeftModel over
// bitsandbytes' 4-bit layers.
func TestBnbLoRAMatchesPeft(t *testing.T) {
	checkLoRAOverQuantized(t, "bnb", "llama-nf4-dq")
}

// checkLoRAOverQuantized scores testdata/<set>/<name>'s adapter (lora/,
// peft LoRA on all 14 projections) merged into the dequantized base and
// separate in the graph against peft's golden_lora.jsonl (1e-4 each), and
// requires the adapter to move the base's log-probs visibly.
func checkLoRAOverQuantized(t *testing.T, set, name string) {
	t.Helper()
	dir := filepath.Join(testdata, set, name)
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, set, "requests.jsonl"))
	want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden_lora.jsonl"))
	_, base := openBnb(t, dir)
	a, err := LoadAdapter(filepath.Join(dir, "lora"), base)
	if err != nil {
		t.Fatal(err)
	}
	merged := loadTestModel(t, dir, a.MergeInto).score(t, reqs, -1)
	sep := loadTestModel(t, dir, nil)
	if err := LoadAdapterVariables(sep.ctx, sep.backend, a, 0, dtypes.Float32); err != nil {
		t.Fatal(err)
	}
	separate, plain := sep.score(t, reqs, 0), sep.score(t, reqs, -1)
	dm, ds, moved := maxDiff(merged, want), maxDiff(separate, want), maxDiffRuns(plain, separate)
	t.Logf("%d LoRA modules: merged vs peft %.3g, separate vs peft %.3g; adapter vs base %.3g", len(a.Layers), dm, ds, moved)
	if dm > 1e-4 || ds > 1e-4 {
		t.Errorf("merged %g, separate %g: over 1e-4", dm, ds)
	}
	if len(a.Layers) != 14 || moved < 1e-2 {
		t.Errorf("%d LoRA modules (want 14), adapter vs base %g (want a visible change)", len(a.Layers), moved)
	}
}

// TestDecodeBlockOffsets: decodeBlock gives element j the high nibble of
// byte j/2 when j is even and the low one when odd, from any start and
// for any length (the goldens' blocks all start even).
func TestDecodeBlockOffsets(t *testing.T) {
	packed := []byte{0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC}
	for start := 0; start < 6; start++ {
		for n := 0; start+n <= 2*len(packed); n++ {
			out := make([]float32, n)
			decodeBlock(out, packed, start, &nf4Code, 2)
			for i, v := range out {
				j := start + i
				q := packed[j/2] >> 4
				if j%2 == 1 {
					q = packed[j/2] & 0xF
				}
				if want := nf4Code[q] * 2; v != want {
					t.Fatalf("start %d, n %d: value %d is %g, want %g", start, n, i, v, want)
				}
			}
		}
	}
}
