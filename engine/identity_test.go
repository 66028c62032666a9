package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goeval/goeval/synth"
)

// identity opens dir with o and returns its identity.
func identity(t *testing.T, dir string, o Options) string {
	t.Helper()
	e, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	id, err := e.Identity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestIdentity: a copy of a checkpoint elsewhere, with other file times,
// has its identity (shards on other machines agree); other weights of the
// same shape, another dtype or another max length do not.
func TestIdentity(t *testing.T) {
	root := t.TempDir()
	write := func(name string, seed uint64) string {
		dir := filepath.Join(root, name)
		if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 64, Layers: 2, Heads: 2, KVHeads: 1,
			Intermediate: 128, Vocab: 256, MaxPositions: 128, BOS: 1, EOS: 2, Seed: seed, Out: dir}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, copied, other := write("a", 1), write("copy", 1), write("other", 2)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(copied, "model.safetensors"), later, later); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(a, "model.safetensors"))
	if err != nil || st.Size() <= identityBlocks*identityBlockSize {
		t.Fatalf("the weights (%v, %v) must be larger than the sampled blocks", st.Size(), err)
	}
	ida := identity(t, a, Options{})
	if got := identity(t, copied, Options{}); got != ida {
		t.Error("a copy of the checkpoint with other file times has another identity")
	}
	if got := identity(t, other, Options{}); got == ida {
		t.Error("a checkpoint of other weights has the same identity")
	}
	if got := identity(t, a, Options{DType: "bfloat16"}); got == ida {
		t.Error("bfloat16 and float32 share an identity")
	}
	if got := identity(t, a, Options{MaxLength: 64}); got == ida {
		t.Error("max length 64 and 128 share an identity")
	}
}
