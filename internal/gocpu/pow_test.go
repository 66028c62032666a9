package gocpu

import (
	"math"
	"testing"
)

// TestPowTwo checks pow's power-of-two path against math.Pow bit for bit,
// and that everything else still takes math.Pow.
func TestPowTwo(t *testing.T) {
	for k := -1100; k <= 1100; k++ {
		if got, want := pow(2, float64(k)), math.Pow(2, float64(k)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("pow(2, %d) = %g, math.Pow %g", k, got, want)
		}
	}
	for _, c := range [][2]float64{{2, 0.5}, {2, -3.25}, {3, 4}, {-2, 3}, {2, math.Inf(1)}, {2, math.NaN()}, {0, -1}} {
		got, want := pow(c[0], c[1]), math.Pow(c[0], c[1])
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("pow(%g, %g) = %g, math.Pow %g", c[0], c[1], got, want)
		}
	}
}
