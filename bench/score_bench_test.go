package bench

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/synth"
)

// benchModel returns $GOEVAL_BENCH_MODEL, or a small random Qwen2-shaped
// checkpoint written to a temporary directory.
func benchModel(b *testing.B) string {
	if d := os.Getenv("GOEVAL_BENCH_MODEL"); d != "" {
		return d
	}
	dir := b.TempDir()
	err := synth.Model(synth.ModelOptions{Arch: "qwen2", Hidden: 256, Layers: 4, Heads: 4, KVHeads: 2,
		Intermediate: 768, Vocab: 32000, Tie: true, RopeTheta: 1e6, RMSNormEps: 1e-6, MaxPositions: 4096,
		Seed: 1, BOS: 1, EOS: 2, Out: dir})
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkScore measures scoring tokens/s (compilation excluded by a
// warm-up call) for a few batch sizes on 16 requests of 120 + 8 tokens.
// GOEVAL_BENCH_MODEL selects the model; GOMLX_BACKEND=go:<options> tunes
// the backend.
func BenchmarkScore(b *testing.B) {
	dir := benchModel(b)
	for _, bs := range []int{4, 8, 16} {
		b.Run(fmt.Sprintf("B=%d", bs), func(b *testing.B) {
			e, err := engine.Open(dir, engine.Options{BatchSize: bs})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			reqs := RandomRequests(16, 120, 8, e.Config().VocabSize, 1)
			if _, err := e.Loglikelihood(context.Background(), reqs); err != nil {
				b.Fatal(err)
			}
			before := e.Stats()
			b.ResetTimer()
			for range b.N {
				if _, err := e.Loglikelihood(context.Background(), reqs); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s := e.Stats()
			b.ReportMetric(float64(s.Tokens-before.Tokens)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(float64(s.CompileTime.Milliseconds()), "compile_ms")
		})
	}
}
