package synth

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
)

func tinyOpts(arch, out string) ModelOptions {
	return ModelOptions{Arch: arch, Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 64,
		Seed: 7, BOS: 1, EOS: 2, Out: out}
}

func synthT(t *testing.T, o ModelOptions) (*models.Config, *safetensors.Set) {
	t.Helper()
	if err := Model(o); err != nil {
		t.Fatal(err)
	}
	c, err := models.LoadConfig(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := safetensors.Open(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return c, s
}

func TestSynthDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		o := tinyOpts("qwen2", dir)
		o.DType = "bf16"
		if err := Model(o); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"config.json", "generation_config.json", "model.safetensors"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs (%d vs %d bytes)", f, len(x), len(y))
		}
	}
	o := tinyOpts("qwen2", t.TempDir())
	o.Seed, o.DType = 8, "bf16"
	if err := Model(o); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(filepath.Join(a, "model.safetensors"))
	y, _ := os.ReadFile(filepath.Join(o.Out, "model.safetensors"))
	if bytes.Equal(x, y) {
		t.Error("seed 7 and seed 8 wrote the same weights")
	}
}

// TestSynthLayout pins the Hugging Face names for each architecture,
// independently of ExpectedTensors.
func TestSynthLayout(t *testing.T) {
	base := []string{"input_layernorm.weight", "mlp.down_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight", "post_attention_layernorm.weight", "self_attn.k_proj.weight", "self_attn.o_proj.weight", "self_attn.q_proj.weight", "self_attn.v_proj.weight"}
	perLayer := map[string][]string{
		"llama":   nil,
		"mistral": nil,
		"qwen2":   {"self_attn.k_proj.bias", "self_attn.q_proj.bias", "self_attn.v_proj.bias"},
		"qwen3":   {"self_attn.k_norm.weight", "self_attn.q_norm.weight"},
	}
	for arch, extra := range perLayer {
		o := tinyOpts(arch, t.TempDir())
		o.Tie = arch != "llama"
		c, s := synthT(t, o)
		want := []string{"model.embed_tokens.weight", "model.norm.weight"}
		if !o.Tie {
			want = append(want, "lm_head.weight")
		}
		for l := 0; l < 2; l++ {
			for _, n := range append(append([]string{}, base...), extra...) {
				want = append(want, "model.layers."+string(rune('0'+l))+"."+n)
			}
		}
		sort.Strings(want)
		if got := s.Names(); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s tensors:\n got %v\nwant %v", arch, got, want)
		}
		if info, _ := s.Info("model.layers.1.self_attn.k_proj.weight"); info.Shape[0] != 16 || info.Shape[1] != 32 {
			t.Errorf("%s k_proj shape %v, want [16 32]", arch, info.Shape)
		}
		if err := models.CheckTensors(c, s); err != nil {
			t.Errorf("%s: %v", arch, err)
		}
	}
}

func TestSynthValues(t *testing.T) {
	o := tinyOpts("llama", t.TempDir())
	o.Hidden, o.Heads = 64, 4
	c, s := synthT(t, o)
	emb, _ := s.Float32("model.embed_tokens.weight")
	mean, sd := stats(emb)
	if math.Abs(mean) > 0.01 || sd < 0.09 || sd > 0.11 {
		t.Errorf("embedding mean %.4f sd %.4f, want ~0 and ~0.1", mean, sd)
	}
	norm, _ := s.Float32("model.layers.0.input_layernorm.weight")
	if mean, sd := stats(norm); math.Abs(mean-1) > 0.03 || sd < 0.02 || sd > 0.08 {
		t.Errorf("norm weight mean %.4f sd %.4f, want ~1 and ~0.05", mean, sd)
	}
	if c.TorchDType != "float32" || c.BOSTokenID != 1 || c.EOSTokenIDs[0] != 2 {
		t.Errorf("config %+v", c)
	}
	// f16 and bf16 files hold the f32 values rounded.
	for _, dt := range []string{"f16", "bf16"} {
		o2 := o
		o2.Out, o2.DType = t.TempDir(), dt
		_, s2 := synthT(t, o2)
		e2, _ := s2.Float32("model.embed_tokens.weight")
		for i := range emb {
			if math.Abs(float64(e2[i]-emb[i])) > 1e-2*math.Abs(float64(emb[i]))+1e-6 {
				t.Fatalf("%s value %d = %v, f32 %v", dt, i, e2[i], emb[i])
			}
		}
	}
}

func stats(xs []float32) (mean, sd float64) {
	for _, x := range xs {
		mean += float64(x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (float64(x) - mean) * (float64(x) - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

func TestSynthSharded(t *testing.T) {
	one := tinyOpts("qwen3", t.TempDir())
	one.HeadDim = 16
	_, s1 := synthT(t, one)
	sh := one
	sh.Out, sh.Shards = t.TempDir(), 3
	c, s3 := synthT(t, sh)
	if len(s3.Files()) != 3 {
		t.Fatalf("files %v", s3.Files())
	}
	if _, err := os.Stat(filepath.Join(sh.Out, "model-00002-of-00003.safetensors")); err != nil {
		t.Fatal(err)
	}
	if err := models.CheckTensors(c, s3); err != nil {
		t.Fatal(err)
	}
	for _, n := range s1.Names() {
		a, _ := s1.Bytes(n)
		b, _ := s3.Bytes(n)
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between single-file and sharded output", n)
		}
	}
	if c.HeadDim != 16 || !c.QKNorm {
		t.Errorf("qwen3 head_dim %d qk norm %v", c.HeadDim, c.QKNorm)
	}
}

func TestSynthTokenizer(t *testing.T) {
	tok := testutil.TokenizerDir(t, "qwen3") // the tokenizer of tiny-qwen2
	o := tinyOpts("qwen2", t.TempDir())
	o.TokenizerDir, o.Vocab = tok, 8
	c, _ := synthT(t, o)
	if c.VocabSize != 151669 || c.BOSTokenID != 151643 || c.EOSTokenIDs[0] != 151645 {
		t.Errorf("vocab %d bos %d eos %v, want the fixture's 151669 151643 151645", c.VocabSize, c.BOSTokenID, c.EOSTokenIDs)
	}
	a, _ := os.ReadFile(filepath.Join(tok, "tokenizer_config.json"))
	b, _ := os.ReadFile(filepath.Join(o.Out, "tokenizer_config.json"))
	if !bytes.Equal(a, b) {
		t.Error("tokenizer_config.json not copied")
	}
}

func TestSynthBadOptions(t *testing.T) {
	cases := map[string]func(o *ModelOptions){
		"arch":  func(o *ModelOptions) { o.Arch = "gpt2" },
		"dtype": func(o *ModelOptions) { o.DType = "f8" },
		"heads": func(o *ModelOptions) { o.Hidden = 30 },
		"eos":   func(o *ModelOptions) { o.EOS = 64 },
		"kv":    func(o *ModelOptions) { o.KVHeads = 3 },
	}
	for name, edit := range cases {
		o := tinyOpts("llama", t.TempDir())
		edit(&o)
		if err := Model(o); err == nil || !errs.IsBadInput(err) {
			t.Errorf("%s: %v, want a bad-input error", name, err)
		}
	}
}
