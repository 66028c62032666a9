package gocpu

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// TestBufferFromBF16Storage: the buffer reads the given storage itself
// (a write to it shows), counts as given, runs release once at
// finalization, and refuses a shape that is not the storage's.
func TestBufferFromBF16Storage(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	data := []bfloat16.BFloat16{bfloat16.FromFloat32(1), bfloat16.FromFloat32(-2), bfloat16.FromFloat32(3), bfloat16.FromFloat32(0.5)}
	released := 0
	buf, err := b.BufferFromBF16Storage(data, shapes.Make(dtypes.BFloat16, 2, 2), func() { released++ })
	if err != nil {
		t.Fatal(err)
	}
	if StorageGiven(buf) != 1 {
		t.Error("not counted as given storage")
	}
	data[3] = bfloat16.FromFloat32(7)
	got := make([]bfloat16.BFloat16, 4)
	if err := b.BufferToFlatData(buf, got); err != nil {
		t.Fatal(err)
	}
	if got[0].Float32() != 1 || got[3].Float32() != 7 {
		t.Errorf("read %v, want the storage's values", got)
	}
	if err := b.BufferFinalize(buf); err != nil {
		t.Fatal(err)
	}
	if err := b.BufferFinalize(buf); err != nil {
		t.Fatal(err)
	}
	if released != 1 {
		t.Errorf("release ran %d times, want 1", released)
	}
	if _, err := b.BufferFromBF16Storage(data, shapes.Make(dtypes.BFloat16, 3), nil); err == nil {
		t.Error("4 values for shape [3]: no error")
	}
	if _, err := b.BufferFromBF16Storage(data, shapes.Make(dtypes.Float32, 4), nil); err == nil {
		t.Error("a float32 shape: no error")
	}
}
