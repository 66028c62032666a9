package tokenizer

import (
	"path/filepath"
	"testing"
)

// BenchmarkEncode measures single-thread encode throughput on the corpus.
func BenchmarkEncode(b *testing.B) {
	texts := corpusTexts(b)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	for _, name := range parityNames {
		tok, err := Load(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, t := range texts {
					tok.Encode(t, false)
				}
			}
		})
	}
}
