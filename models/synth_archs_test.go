package models

import (
	"path/filepath"
	"testing"
)

// TestSynthArchs synthesizes each new architecture and loads it back
// strictly (config checks, tensor coverage, graph build and a forward).
// parity/archs/arch_golden.py --synth checks the same files against
// transformers.
func TestSynthArchs(t *testing.T) {
	reqs := []scoreReq{{ContextIDs: []int32{4, 9, 33, 7, 21, 5}, ContinuationIDs: []int32{12, 3}}}
	for _, arch := range []string{"phi", "phi3", "gemma2", "gemma3"} {
		t.Run(arch, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), arch)
			err := Synth(SynthOptions{Arch: arch, Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 48,
				Vocab: 64, Seed: 1, BOS: 1, EOS: 2, SlidingWindow: 3, Out: dir})
			if err != nil {
				t.Fatal(err)
			}
			tm := loadTestModel(t, dir, nil)
			if got := tm.model.Config().Arch(); got != synthArchs[arch][0] {
				t.Fatalf("architecture %q, want %q", got, synthArchs[arch][0])
			}
			lp := tm.score(t, reqs, -1)[0]
			for _, x := range lp {
				if !(x < 0) {
					t.Errorf("log-prob %g is not negative", x)
				}
			}
		})
	}
}
