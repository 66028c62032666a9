package vmath

import (
	"math"
	"os"
	"testing"
)

// TestAccuracyRandom checks every function of every kernel against its
// float64 reference on random inputs across the whole float32 range
// (about 2.6M each with -short, 10.5M otherwise; TestAccuracyExhaustive
// checks them all).
func TestAccuracyRandom(t *testing.T) {
	chunks := 160
	if testing.Short() {
		chunks = 40
	}
	for _, k := range kernels() {
		for _, f := range functions {
			t.Run(k.name+"/"+f.name, func(t *testing.T) {
				report(t, k, f, sweep(k, f, chunks, randomInputs))
			})
		}
	}
}

// TestAccuracyExhaustive checks every float32 input (2^32 of them) of
// every function and kernel; it takes minutes, so it runs only with
// GOEVAL_VMATH_EXHAUSTIVE=1 (go test -v -run Exhaustive -timeout 1h).
func TestAccuracyExhaustive(t *testing.T) {
	if os.Getenv("GOEVAL_VMATH_EXHAUSTIVE") != "1" {
		t.Skip("set GOEVAL_VMATH_EXHAUSTIVE=1 to check all 2^32 inputs")
	}
	all := func(c int, xs []float32) {
		base := uint32(c * len(xs))
		for i := range xs {
			xs[i] = math.Float32frombits(base + uint32(i))
		}
	}
	for _, k := range kernels() {
		for _, f := range functions {
			t.Run(k.name+"/"+f.name, func(t *testing.T) {
				report(t, k, f, sweep(k, f, 1<<32/(1<<16), all))
			})
		}
	}
}
