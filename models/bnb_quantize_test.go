package models

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/goeval/goeval/models/safetensors"
)

// TestBNBQuantizeGolden checks the --load-in-4bit quantizer against
// bitsandbytes 0.50.2's quantize_4bit (parity/bnb/quantize_golden.py):
// packed codes and absmax bit-identical, per case.
func TestBNBQuantizeGolden(t *testing.T) {
	set, err := safetensors.OpenFile("testdata/bnb_quantize/golden.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	meta := set.Metadata()
	if len(meta) < 30 {
		t.Fatalf("golden holds %d cases, want 30", len(meta))
	}
	for key, spec := range meta {
		qt, bsText, _ := strings.Cut(spec, "/")
		bs, err := strconv.Atoi(bsText)
		if err != nil {
			t.Fatalf("%s: block size %q", key, spec)
		}
		q, err := newBNBQuantizer(qt)
		if err != nil {
			t.Fatal(err)
		}
		x := mustF32(t, set, key+".x")
		wantPacked, err := set.Bytes(key + ".packed")
		if err != nil {
			t.Fatal(err)
		}
		wantAbsmax := mustF32(t, set, key+".absmax")
		packed, absmax := q.quantize(x, bs)
		if !bytes.Equal(packed, wantPacked) {
			t.Errorf("%s: packed codes differ from bitsandbytes (first at byte %d)", key, firstDiff(packed, wantPacked))
		}
		if len(absmax) != len(wantAbsmax) {
			t.Fatalf("%s: %d absmax, want %d", key, len(absmax), len(wantAbsmax))
		}
		for i := range absmax {
			if math.Float32bits(absmax[i]) != math.Float32bits(wantAbsmax[i]) {
				t.Errorf("%s: absmax[%d] = %g, want %g", key, i, absmax[i], wantAbsmax[i])
			}
		}
	}
}

// TestBNBQuantizeRoundTrip checks that dequantizing quantized values
// gives each value's nearest code-book value times its block's absmax.
func TestBNBQuantizeRoundTrip(t *testing.T) {
	for _, qt := range []string{"nf4", "fp4"} {
		q, err := newBNBQuantizer(qt)
		if err != nil {
			t.Fatal(err)
		}
		code := &nf4Code
		if qt == "fp4" {
			code = &fp4Code
		}
		x := []float32{1, -0.5, 0.3, 0.01, -1, 0.7, 0.2}
		packed, absmax := q.quantize(x, 64)
		out := make([]float32, len(x))
		decodeBlock(out, packed, 0, code, absmax[0])
		for i, v := range x {
			best := float32(math.Inf(1))
			for _, c := range code {
				best = min(best, float32(math.Abs(float64(c-v))))
			}
			if got := float32(math.Abs(float64(out[i] - v))); got != best {
				t.Errorf("%s: x[%d]=%g dequantizes to %g, %g away; nearest code is %g away", qt, i, v, out[i], got, best)
			}
		}
	}
	if _, err := newBNBQuantizer("int4"); err == nil {
		t.Error("quant type int4 accepted")
	}
}

func mustF32(t *testing.T, set *safetensors.Set, name string) []float32 {
	t.Helper()
	v, err := set.Float32(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
