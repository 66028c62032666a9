package models

import (
	"slices"
	"testing"
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
