package models

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/x448/float16"

	"github.com/goeval/goeval/models/safetensors"
)

// TestTransposed: the load-time transpose of a row-major [rows, cols]
// matrix, including sizes that are not multiples of its 64×64 blocks.
func TestTransposed(t *testing.T) {
	if got := transposed([]float32{1, 2, 3, 4, 5, 6}, 2, 3); !slices.Equal(got, []float32{1, 4, 2, 5, 3, 6}) {
		t.Errorf("2×3: got %v", got)
	}
	const rows, cols = 70, 131
	m := make([]float32, rows*cols)
	for i := range m {
		m[i] = float32(i)
	}
	tr := transposed(m, rows, cols)
	for r := range rows {
		for c := range cols {
			if tr[c*rows+r] != m[r*cols+c] {
				t.Fatalf("[%d, %d]: %v, want %v", r, c, tr[c*rows+r], m[r*cols+c])
			}
		}
	}
	if back := transposed(tr, cols, rows); !slices.Equal(back, m) {
		t.Error("transposing twice does not give the matrix back")
	}
}

// TestHostBF16: loading a matrix in bfloat16 without a float32 copy (the
// XLA path: converted on all processors, transposed in bf16) gives the
// bits of the float32 route it replaced, rounding to nearest after the
// transpose, for each checkpoint dtype and a shape of partial blocks.
func TestHostBF16(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const rows, cols = 300, 131
	vals := make([]float32, rows*cols)
	for i := range vals {
		vals[i] = float32(math.Sin(float64(i))) * float32(1+i%7)
	}
	f32, f16, bf16 := make([]byte, 4*len(vals)), make([]byte, 2*len(vals)), make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(v))
		binary.LittleEndian.PutUint16(f16[2*i:], float16.Fromfloat32(v).Bits())
		binary.LittleEndian.PutUint16(bf16[2*i:], safetensors.Float32ToBF16(v))
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	err := safetensors.Write(path, []safetensors.Tensor{
		{Name: "F32", DType: "F32", Shape: []int{rows, cols}, Data: f32},
		{Name: "F16", DType: "F16", Shape: []int{rows, cols}, Data: f16},
		{Name: "BF16", DType: "BF16", Shape: []int{rows, cols}, Data: bf16},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := safetensors.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"F32", "F16", "BF16"} {
		info, _ := s.Info(name)
		for _, transpose := range []bool{false, true} {
			got, shape, err := hostBF16(s, name, info, transpose)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := s.Float32(name)
			if transpose {
				data = transposed(data, rows, cols)
			}
			want := flatIn(data, dtypes.BFloat16).([]bfloat16.BFloat16)
			if !slices.Equal(got, want) || shape.Size() != len(want) || (transpose && shape.Dimensions[0] != cols) {
				t.Errorf("%s transpose=%v: bits or shape %v differ from the float32 route", name, transpose, shape)
			}
		}
	}
}
