package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The benchmarks report ns/elem for each kernel and for the scalar
// float64 math.Exp loop the backend used before (see doc.go):
//
//	go test -run '^$' -bench . -cpu 1 ./internal/vmath

var benchSizes = []int{4096, 1 << 20}

func benchInputs(n int) []float32 {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(-15 + 30*rng.Float64())
	}
	return xs
}

func benchFunction(b *testing.B, f function, scalar func(float32) float32) {
	for _, n := range benchSizes {
		src, dst := benchInputs(n), make([]float32, n)
		run := func(name string, fn func(dst, src []float32)) {
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					fn(dst, src)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/elem")
			})
		}
		for _, k := range kernels() {
			run(k.name, f.of(k))
		}
		run("math.Exp", func(dst, src []float32) {
			for i, x := range src {
				dst[i] = scalar(x)
			}
		})
	}
}

func BenchmarkExp(b *testing.B) {
	benchFunction(b, functions[0], func(x float32) float32 {
		return float32(math.Exp(float64(x)))
	})
}

func BenchmarkLogistic(b *testing.B) {
	benchFunction(b, functions[1], func(x float32) float32 {
		return float32(1 / (1 + math.Exp(-float64(x))))
	})
}

func BenchmarkSiLU(b *testing.B) {
	benchFunction(b, functions[2], func(x float32) float32 {
		return float32(float64(x) / (1 + math.Exp(-float64(x))))
	})
}

// BenchmarkExp64: Exp64's kernels against math.Exp, ns/elem, on
// log-softmax-like inputs (x − max ≤ 0).
func BenchmarkExp64(b *testing.B) {
	for _, n := range benchSizes {
		rng := rand.New(rand.NewPCG(3, 4))
		src, dst := make([]float64, n), make([]float64, n)
		for i := range src {
			src[i] = -40 * rng.Float64()
		}
		run := func(name string, fn func(dst, src []float64)) {
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					fn(dst, src)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/elem")
			})
		}
		for _, k := range kernels() {
			run(k.name, k.exp64)
		}
		run("math.Exp", func(dst, src []float64) {
			for i, x := range src {
				dst[i] = math.Exp(x)
			}
		})
	}
}
