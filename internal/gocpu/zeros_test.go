package gocpu

import (
	"slices"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// TestNewZerosInPlace: a NewZeros buffer is zero even where the pool hands
// back used storage, and donated to an execution it is updated in its own
// storage (a KV cache's first prefill writes it in place, not into a
// copy), with the values of an update of a borrowed buffer.
func TestNewZerosInPlace(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	shape := shapes.Make(dtypes.Float32, 2, 3, 4)
	// Used storage (1024 elements: over put's 4 KiB floor) waits in the
	// pool: NewZeros of that size gets it, zeroed.
	big := shapes.Make(dtypes.Float32, 1024)
	used := b.pool.get(dtypes.Float32, 1024, false).([]float32)
	for i := range used {
		used[i] = 7
	}
	b.pool.put(dtypes.Float32, used)
	z, err := NewZeros(b, big)
	if err != nil {
		t.Fatal(err)
	}
	if got := z.(*Buffer).flat.([]float32); &got[0] != &used[0] || slices.Max(got) != 0 || slices.Min(got) != 0 {
		t.Fatalf("NewZeros from pooled storage: reused %v, not all zero", &got[0] == &used[0])
	}

	c, err := NewZeros(b, shape)
	if err != nil {
		t.Fatal(err)
	}
	storage := &c.(*Buffer).flat.([]float32)[0]
	x, _ := b.BufferFromFlatData(0, []float32{-1, -2, -3, -4}, shapes.Make(dtypes.Float32, 1, 1, 4))
	p, _ := b.BufferFromFlatData(0, []int32{1}, shapes.Make(dtypes.Int32))
	outs, err := updateGraph(t, b, false).Execute([]backends.Buffer{c, x, p}, []bool{true, false, false}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := outs[0].(*Buffer).flat.([]float32)
	want := make([]float32, 24)
	copy(want[4:8], []float32{-1, -2, -3, -4})
	copy(want[20:24], []float32{-2, -4, -6, -8})
	if !slices.Equal(got, want) {
		t.Fatalf("update of a NewZeros cache: got %v, want %v", got, want)
	}
	if &got[0] != storage {
		t.Error("a donated NewZeros buffer was copied instead of updated in place")
	}
	if _, err := NewZeros(nil, shape); err == nil {
		t.Error("NewZeros on a backend not gocpu's: no error")
	}
}
