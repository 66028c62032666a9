package engine

import (
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/synth"
)

// synthWide writes the model of the chunking memory tests: 64 wide, an
// MLP of 1024 (8 MiB of activations per layer at 2048 tokens), 4096
// positions; rope nil or a LongRoPE scaling for arch phi3.
func synthWide(t *testing.T, arch string, rope *models.RopeScaling) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wide-"+arch)
	err := synth.Model(synth.ModelOptions{Arch: arch, Hidden: 64, Layers: 4, Heads: 2, KVHeads: 1, Intermediate: 1024,
		Vocab: 512, MaxPositions: 4096, Seed: 3, BOS: 1, EOS: 2, Out: dir, RopeScaling: rope})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// chunkPeak opens dir with opts and chunks of chunk tokens, runs run on
// it with gocpu's memory statistics on, and returns them (skipping the
// test on another backend).
func chunkPeak(t *testing.T, dir string, opts Options, chunk int, run func(e *Engine) error) gocpu.MemStat {
	t.Helper()
	withChunkTokens(t, chunk)
	e, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.backend.String() != gocpu.Name {
		t.Skipf("memory statistics are the pure-Go backend's (device %s)", e.backend.String())
	}
	gocpu.SetMemStats(true)
	defer gocpu.SetMemStats(false)
	if err := run(e); err != nil {
		t.Fatal(err)
	}
	return gocpu.MemStats()
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
