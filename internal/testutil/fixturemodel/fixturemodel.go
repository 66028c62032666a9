// Package fixturemodel builds the weights of the llama.cpp fixture models
// under testdata/fixtures: random checkpoints from goeval's deterministic
// synthetic generator, with the shapes of each fixture's committed
// config.json, and tiny-qwen2-merged as tiny-qwen2 with the tiny-qwen2-lora
// adapter merged in f32. The same files are what parity/fixtures/make_refs.sh
// converts to GGUF for llama.cpp (through cmd mkfixtures), so the committed
// references belong to exactly these weights.
package fixturemodel

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
	"github.com/goeval/goeval/synth"
)

// recipe is what config.json does not say: the generator seed and the
// tokenizer (a folder of models/tokenizer/testdata).
type recipe struct {
	seed      uint64
	tokenizer string
}

var recipes = map[string]recipe{
	"tiny-llama":   {seed: 101, tokenizer: "llama2"},
	"tiny-llama32": {seed: 102, tokenizer: "llama3"},
	"tiny-qwen2":   {seed: 103, tokenizer: "qwen3"},
	"tiny-qwen3":   {seed: 104, tokenizer: "qwen3"},
}

// Merged names the merged fixture: Base with Adapter merged in.
const (
	Merged  = "tiny-qwen2-merged"
	Base    = "tiny-qwen2"
	Adapter = "tiny-qwen2-lora"
)

// Names lists the fixture models, the merged one last.
func Names() []string {
	var out []string
	for n := range recipes {
		out = append(out, n)
	}
	sort.Strings(out)
	return append(out, Merged)
}

// synthesize is the one call into goeval's synthetic checkpoint generator.
func synthesize(o synth.ModelOptions) error { return synth.Model(o) }

// Write builds fixture model name into out (config.json,
// generation_config.json, model.safetensors, tokenizer files). root is the
// repository root; the merged model needs its base already under
// filepath.Dir(out)/Base.
func Write(root, name, out string) error {
	fx := filepath.Join(root, filepath.FromSlash(testutil.FixturesDir), name)
	if name == Merged {
		return writeMerged(root, fx, filepath.Join(filepath.Dir(out), Base), out)
	}
	r, ok := recipes[name]
	if !ok {
		return fmt.Errorf("fixturemodel: unknown fixture model %q", name)
	}
	cfg, err := models.LoadConfig(fx)
	if err != nil {
		return fmt.Errorf("fixturemodel %s: %w (regenerate with %s)", name, err, testutil.Regenerate)
	}
	tok := filepath.Join(filepath.Dir(out), "tokenizer-"+r.tokenizer)
	if err := testutil.MaterializeTokenizer(filepath.Join(root, "models", "tokenizer", "testdata", r.tokenizer), tok); err != nil {
		return err
	}
	o := synth.ModelOptions{
		Arch: cfg.ModelType, Hidden: cfg.HiddenSize, Layers: cfg.NumHiddenLayers, Heads: cfg.NumAttentionHeads,
		KVHeads: cfg.NumKeyValueHeads, Intermediate: cfg.IntermediateSize, Vocab: cfg.VocabSize, HeadDim: cfg.HeadDim,
		Tie: cfg.TieWordEmbeddings, RopeTheta: cfg.RopeTheta, RMSNormEps: cfg.RMSNormEps, RopeScaling: cfg.RopeScaling,
		MaxPositions: cfg.MaxPositionEmbeddings, Seed: r.seed, DType: "f32", TokenizerDir: tok, Out: out,
	}
	if err := synthesize(o); err != nil {
		return fmt.Errorf("fixturemodel %s: %w", name, err)
	}
	// The committed config.json and generation_config.json are the
	// fixture's own; the weights must fit them exactly.
	for _, f := range []string{"config.json", "generation_config.json"} {
		if err := copyFile(filepath.Join(fx, f), filepath.Join(out, f)); err != nil {
			return err
		}
	}
	return check(out)
}

// check verifies that out's tensors are exactly those its config implies.
func check(out string) error {
	cfg, err := models.LoadConfig(out)
	if err != nil {
		return err
	}
	set, err := safetensors.Open(out)
	if err != nil {
		return err
	}
	defer set.Close()
	if err := models.CheckTensors(cfg, set); err != nil {
		return fmt.Errorf("fixturemodel: %s: %w", out, err)
	}
	if got, want := len(set.Names()), len(models.ExpectedTensors(cfg)); got != want {
		return fmt.Errorf("fixturemodel: %s: %d tensors, config implies %d", out, got, want)
	}
	return nil
}

// writeMerged writes base with the adapter merged into every tensor it
// targets (f32), and the base's other files.
func writeMerged(root, fx, base, out string) error {
	set, err := safetensors.Open(base)
	if err != nil {
		return fmt.Errorf("fixturemodel %s: base %s: %w", Merged, base, err)
	}
	defer set.Close()
	a, err := models.LoadAdapter(filepath.Join(root, filepath.FromSlash(testutil.FixturesDir), Adapter), set)
	if err != nil {
		return err
	}
	var ts []safetensors.Tensor
	for _, name := range set.Names() {
		info, _ := set.Info(name)
		w, err := set.Float32(name)
		if err != nil {
			return err
		}
		if w, err = a.MergeInto(name, w, info.Shape); err != nil {
			return err
		}
		b := make([]byte, 4*len(w))
		for i, v := range w {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		ts = append(ts, safetensors.Tensor{Name: name, DType: "F32", Shape: info.Shape, Data: b})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := safetensors.Write(filepath.Join(out, safetensors.SingleFile), ts, map[string]string{"format": "pt"}); err != nil {
		return err
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		if err := copyFile(filepath.Join(base, f), filepath.Join(out, f)); err != nil {
			return err
		}
	}
	for _, f := range []string{"config.json", "generation_config.json"} {
		if err := copyFile(filepath.Join(fx, f), filepath.Join(out, f)); err != nil {
			return err
		}
	}
	return check(out)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("fixturemodel: %w (regenerate with %s)", err, testutil.Regenerate)
	}
	return os.WriteFile(dst, data, 0o644)
}

var (
	mu    sync.Mutex
	built = map[string]string{}
)

// Model returns the folder of fixture model name (see Names), built once
// per test binary; a failure fails the test.
func Model(t testing.TB, name string) string {
	t.Helper()
	root := testutil.Root(t)
	testutil.Fixture(t, name, "config.json")
	if name == Merged {
		Model(t, Base)
	}
	mu.Lock()
	defer mu.Unlock()
	if d, ok := built[name]; ok {
		return d
	}
	out := filepath.Join(testutil.CacheDir(t), "models", name)
	if err := Write(root, name, out); err != nil {
		t.Fatalf("build fixture model %s: %v", name, err)
	}
	built[name] = out
	return out
}

// AdapterDir returns the committed tiny-qwen2-lora PEFT adapter folder.
func AdapterDir(t testing.TB) string {
	t.Helper()
	return testutil.Fixture(t, Adapter)
}
