package safetensors

import (
	"math"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

// TestBF16Into: BF16 tensors are copied bit for bit, F32 and F16 ones
// rounded to the nearest bfloat16 with ties to even (Float32ToBF16, as
// torch converts), every mapped byte is handed to done, and a wrong
// length or dtype is bad input.
func TestBF16Into(t *testing.T) {
	big := make([]float32, bf16Chunk+3) // two chunks
	for i := range big {
		big[i] = float32(i) * 1.0001
	}
	f32 := []float32{1, -3, 1 + 1.0/256, 1 + 3.0/256, 1 + 1.0/128 + 1.0/1024, float32(math.Inf(-1)), 1e-40}
	f32want := []uint16{0x3F80, 0xC040, 0x3F80, 0x3F82, 0x3F81, 0xFF80, Float32ToBF16(1e-40)}
	f16bits := []uint16{0x3C00, 0xC000, 0x3555, 0x7BFF, 0x0001}
	f16want := []uint16{0x3F80, 0xC000, Float32ToBF16(0.333251953125), Float32ToBF16(65504), Float32ToBF16(5.960464477539063e-08)}
	bf16bits := []uint16{0x3F80, 0xC040, 0x3EAB, 0x7FC1, 0x0001}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	err := Write(path, []Tensor{
		{Name: "a", DType: "F32", Shape: []int{len(f32)}, Data: le32(f32...)},
		{Name: "b", DType: "F16", Shape: []int{len(f16bits)}, Data: le16(f16bits...)},
		{Name: "c", DType: "BF16", Shape: []int{len(bf16bits)}, Data: le16(bf16bits...)},
		{Name: "d", DType: "F32", Shape: []int{len(big)}, Data: le32(big...)},
		{Name: "e", DType: "I32", Shape: []int{1}, Data: le32(1)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := openT(t, path)
	for _, c := range []struct {
		name string
		want []uint16
	}{{"a", f32want}, {"b", f16want}, {"c", bf16bits}} {
		got := make([]uint16, len(c.want))
		if err := s.BF16Into(c.name, got, nil); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %#04x, %v; want %#04x", c.name, got, err, c.want)
		}
	}
	got := make([]uint16, len(big))
	var seen atomic.Int64 // the chunks run on all processors
	if err := s.BF16Into("d", got, func(raw []byte) { seen.Add(int64(len(raw))) }); err != nil {
		t.Fatal(err)
	}
	if seen.Load() != int64(4*len(big)) {
		t.Errorf("done saw %d bytes, want %d", seen.Load(), 4*len(big))
	}
	for i, f := range big {
		if got[i] != Float32ToBF16(f) {
			t.Fatalf("d[%d] = %#04x, want %#04x", i, got[i], Float32ToBF16(f))
		}
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"a", 3}, {"e", 1}, {"nope", 1}} {
		if err := s.BF16Into(c.name, make([]uint16, c.n), nil); !errs.IsBadInput(err) {
			t.Errorf("%s into %d values: err %v, want bad input", c.name, c.n, err)
		}
	}
}
