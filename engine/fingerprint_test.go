package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/synth"
)

// fingerprint opens dir with o and returns its fingerprint.
func fingerprint(t *testing.T, dir string, o Options) string {
	t.Helper()
	e, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	fp, err := e.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// The same checkpoint and settings give the same fingerprint; the resolved
// dtype, a touched weight file, the max length or an edited config.json
// change it.
func TestFingerprint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 16, Layers: 1, Heads: 2, KVHeads: 1,
		Intermediate: 32, Vocab: 64, MaxPositions: 128, BOS: 1, EOS: 2, Seed: 1, Out: dir}); err != nil {
		t.Fatal(err)
	}
	a := fingerprint(t, dir, Options{})
	if b := fingerprint(t, dir, Options{BatchSize: 3}); a != b {
		t.Errorf("two opens of %s (batch 8 and 3) give fingerprints %s and %s", dir, a, b)
	}
	bf16 := fingerprint(t, dir, Options{DType: "bfloat16"})
	if bf16 == a {
		t.Error("bfloat16 and float32 share a fingerprint")
	}
	// float16 runs here in float32 on rounded weights: its own answers all
	// the same; auto on this CPU device is float32, and spellings agree.
	if f16 := fingerprint(t, dir, Options{DType: "float16"}); f16 == a || f16 == bf16 {
		t.Error("float16 shares a fingerprint with float32 or bfloat16")
	} else if half := fingerprint(t, dir, Options{DType: "half"}); half != f16 {
		t.Error("half and float16 have different fingerprints")
	}
	if b := fingerprint(t, dir, Options{DType: "auto", Device: "cpu"}); b != a {
		t.Error("auto on the CPU and float32 have different fingerprints")
	}
	if b := fingerprint(t, dir, Options{MaxLength: 64}); a == b {
		t.Error("max length 64 and 128 share a fingerprint")
	}
	weights := filepath.Join(dir, "model.safetensors")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(weights, later, later); err != nil {
		t.Fatal(err)
	}
	touched := fingerprint(t, dir, Options{})
	if touched == a {
		t.Error("touching model.safetensors kept the fingerprint")
	}
	cfg := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if b := fingerprint(t, dir, Options{}); b == touched {
		t.Error("editing config.json kept the fingerprint")
	}
}

// Adapter views: the base view, the adapter view, the same adapter merged
// and the plain base all differ; the same view twice does not.
func TestFingerprintAdapters(t *testing.T) {
	base, lora := fixturemodel.Model(t, fixturemodel.Base), fixturemodel.AdapterDir(t)
	e, err := Open(base, Options{Adapters: []string{lora}, AdapterMode: AdapterSeparate})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	fps := map[string]string{}
	add := func(name string, fp string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for n, other := range fps {
			if other == fp {
				t.Errorf("%s and %s share a fingerprint", n, name)
			}
		}
		fps[name] = fp
	}
	for _, i := range []int{-1, 0} {
		v, err := e.WithAdapter(i)
		if err != nil {
			t.Fatal(err)
		}
		fp, err := v.Fingerprint()
		add(fmt.Sprintf("separate view %d", i), fp, err)
		if again, _ := e.WithAdapter(i); again != nil {
			if fp2, _ := again.Fingerprint(); fp2 != fp {
				t.Errorf("view %d twice: %s and %s", i, fp, fp2)
			}
		}
	}
	add("merged", fingerprint(t, base, Options{Adapters: []string{lora}}), nil)
	add("plain base", fingerprint(t, base, Options{}), nil)
}
