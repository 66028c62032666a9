package tasks

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// TestPyRandomGolden checks the few-shot sampler's random source
// (internal/py): MT19937 seeding, getrandbits and sample against
// CPython (testdata/pyrandom.json, from parity/lmeval/pyrandom_golden.py).
func TestPyRandomGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/pyrandom.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Seed  int64    `json:"seed"`
		Bits  []uint32 `json:"bits32"`
		Draws []struct {
			N, K   int
			Sample []int
		} `json:"draws"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("empty golden")
	}
	for _, c := range cases {
		r := py.NewRand(c.Seed)
		for i, want := range c.Bits {
			if got := uint32(r.GetRandBits(32)); got != want {
				t.Fatalf("seed %d bits[%d] = %d, want %d", c.Seed, i, got, want)
			}
		}
		for _, d := range c.Draws {
			if got := r.SampleIndex(d.N, d.K); !slices.Equal(got, d.Sample) {
				t.Fatalf("seed %d sample(%d,%d) = %v, want %v", c.Seed, d.N, d.K, got, d.Sample)
			}
		}
	}
}
