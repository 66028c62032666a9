package models

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/safetensors"
)

// bnbLoadModels and bnbLoadQuants are parity/bnb/loadin4bit_golden.py's
// float checkpoints (Llama untied, Qwen2 with tied embeddings) and the
// load_in_4bit settings they were loaded with in transformers; the Llama
// model was also loaded as nf4 with llm_int8_skip_modules=["down_proj"]
// (nf4-skip: its lm_head quantized too, as transformers does then).
var (
	bnbLoadModels = []string{"llama", "qwen2-tied"}
	bnbLoadQuants = []string{"nf4", "fp4", "nf4-dq", "fp4-dq"}
)

// bnbLoadQuantsOf is the quantizations model's goldens cover.
func bnbLoadQuantsOf(model string) []string {
	if model == "llama" {
		return append(slices.Clone(bnbLoadQuants), "nf4-skip")
	}
	return bnbLoadQuants
}

// bnbLoadConfig is LoadIn4Bit of a golden's quantization name.
func bnbLoadConfig(t *testing.T, quant string) *Quantization {
	t.Helper()
	quant, skip := strings.CutSuffix(quant, "-skip")
	qt, dq := strings.CutSuffix(quant, "-dq")
	q, err := LoadIn4Bit(qt, dq, "float32")
	if err != nil {
		t.Fatal(err)
	}
	if skip {
		q.SkipModules = []string{"down_proj"}
	}
	return q
}

// TestLoadIn4BitForm: a float checkpoint quantized at load holds, for
// every tensor, the bytes transformers' save_pretrained writes after
// load_in_4bit (form_<q>.json): the same weights quantized (no more, no
// fewer: lm_head, embeddings, norms and biases stay float), bit-identical
// codes, absmax, double quantization's 8-bit codes, nested absmax and
// offset, code books and JSON quant state.
func TestLoadIn4BitForm(t *testing.T) {
	for _, model := range bnbLoadModels {
		for _, quant := range bnbLoadQuantsOf(model) {
			t.Run(model+"/"+quant, func(t *testing.T) {
				dir := filepath.Join(testdata, "bnb_load", model)
				want := readForm(t, filepath.Join(dir, "form_"+quant+".json"))
				set, err := safetensors.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer set.Close()
				b, err := quantizeSet(set, bnbLoadConfig(t, quant))
				if err != nil {
					t.Fatal(err)
				}
				got := formOf(t, b)
				for name, sum := range want {
					if got[name] != sum {
						t.Errorf("%s: sha256 %.12s, transformers %.12s", name, got[name], sum)
					}
				}
				for name := range got {
					if _, ok := want[name]; !ok {
						t.Errorf("%s: goeval has it, transformers' save_pretrained does not", name)
					}
				}
			})
		}
	}
}

// readForm reads a form_<q>.json: tensor name → SHA-256 of its bytes.
func readForm(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// formOf is the SHA-256 of each tensor b stores: its in-memory quantized
// tensors, and the file's others.
func formOf(t *testing.T, b *bnbSet) map[string]string {
	t.Helper()
	out := map[string]string{}
	names := b.Set.Names()
	for n := range b.mem {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		raw, err := b.Bytes(n)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(raw)
		out[n] = hex.EncodeToString(h[:])
	}
	return out
}

// loadIn4BitModel loads dir through Load with load_in_4bit (quant) and
// adapters in mode, in float32 on the pure-Go backend.
func loadIn4BitModel(t *testing.T, dir, quant string, adapters []string, mode string) *testModel {
	t.Helper()
	backend, err := simplego.New("ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(backend, dir, LoadOptions{DType: dtypes.Float32, LoadIn4Bit: bnbLoadConfig(t, quant),
		Adapters: adapters, AdapterMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return &testModel{backend: backend, ctx: l.Context, model: l.Model}
}

// TestLoadIn4BitMatchesTransformers scores each float golden loaded with
// load_in_4bit (nf4, fp4, with and without double quantization) against
// transformers + bitsandbytes' 4-bit model computing in float32:
// max |Δ logprob_sum| ≤ 1e-4 and the same argmax at every position.
func TestLoadIn4BitMatchesTransformers(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "bnb_load", "requests.jsonl"))
	for _, model := range bnbLoadModels {
		for _, quant := range bnbLoadQuantsOf(model) {
			t.Run(model+"/"+quant, func(t *testing.T) {
				dir := filepath.Join(testdata, "bnb_load", model)
				want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden_"+quant+".jsonl"))
				m := loadIn4BitModel(t, dir, quant, nil, "")
				d := maxDiff(m.score(t, reqs, -1), want)
				t.Logf("max |Δ logprob_sum| = %.3g over %d requests", d, len(reqs))
				if d > 1e-4 {
					t.Errorf("max |Δ| = %g > 1e-4", d)
				}
				checkGreedyIDs(t, m, reqs, want)
			})
		}
	}
}

// TestDynamicMap: goeval's dynamic map is bit for bit the
// nested_quant_map bitsandbytes stores with double quantization.
func TestDynamicMap(t *testing.T) {
	_, set := openBnb(t, filepath.Join(testdata, "bnb", "llama-nf4-dq"))
	want := mustF32(t, set.(*bnbSet).Set, "model.layers.0.self_attn.q_proj.weight.nested_quant_map")
	for i, v := range want {
		if math.Float32bits(dynamicMap[i]) != math.Float32bits(v) {
			t.Errorf("dynamicMap[%d] = %.9g, bitsandbytes %.9g", i, dynamicMap[i], v)
		}
	}
}

// TestLoadIn4BitLoRAMatchesPeft: a QLoRA adapter over the nf4 model,
// merged into the dequantized weights and separate in the graph, against
// PeftModel over transformers' load_in_4bit model.
func TestLoadIn4BitLoRAMatchesPeft(t *testing.T) {
	dir := filepath.Join(testdata, "bnb_load", "llama")
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "bnb_load", "requests.jsonl"))
	want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden_lora_nf4.jsonl"))
	base := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, "golden_nf4.jsonl"))
	lora := []string{filepath.Join(dir, "lora")}
	merged := loadIn4BitModel(t, dir, "nf4", lora, AdapterMerged).score(t, reqs, -1)
	separate := loadIn4BitModel(t, dir, "nf4", lora, AdapterSeparate).score(t, reqs, 0)
	dm, ds, moved := maxDiff(merged, want), maxDiff(separate, want), maxDiff(separate, base)
	t.Logf("merged vs peft %.3g, separate vs peft %.3g; adapter vs base %.3g", dm, ds, moved)
	if dm > 1e-4 || ds > 1e-4 {
		t.Errorf("merged %g, separate %g: over 1e-4", dm, ds)
	}
	if moved < 1e-2 {
		t.Errorf("the adapter moves the log-probs by %g: not a visible change", moved)
	}
}

// TestBnbLoadTargets: the weights load_in_4bit quantizes are the decoder's
// Linear weights: not the embedding, norms, biases, MoE experts (fused 3-D
// parameters in transformers 5) or routers, nor a module
// llm_int8_skip_modules names (prefix to a module boundary, regex,
// suffix); lm_head only when llm_int8_skip_modules is given and does not
// name it (it then replaces transformers' default skips).
func TestBnbLoadTargets(t *testing.T) {
	names := []string{"lm_head.weight", "model.embed_tokens.weight", "model.norm.weight",
		"model.layers.0.input_layernorm.weight", "model.layers.0.self_attn.q_proj.weight",
		"model.layers.0.self_attn.q_proj.bias", "model.layers.0.mlp.gate.weight",
		"model.layers.0.mlp.experts.3.up_proj.weight", "model.layers.0.mlp.shared_expert.down_proj.weight",
		"model.layers.0.mlp.shared_expert_gate.weight", "model.layers.0.block_sparse_moe.gate.weight",
		"model.layers.1.self_attn.o_proj.weight", "model.layers.11.self_attn.o_proj.weight",
		"model.layers.2.mlp.down_proj.weight"}
	rank := func(n string) int {
		if strings.HasSuffix(n, "norm.weight") || strings.HasSuffix(n, ".bias") {
			return 1
		}
		return 2
	}
	layers := []string{"model.layers.0.self_attn.q_proj.weight", "model.layers.0.mlp.shared_expert_gate.weight",
		"model.layers.11.self_attn.o_proj.weight"}
	for _, c := range []struct {
		skip []string
		want []string
	}{
		{[]string{"model.layers.1", "down_proj"}, append([]string{"lm_head.weight"}, layers...)},
		{[]string{"model.layers.1", "down_proj", "lm_head"}, layers},
		{nil, []string{"model.layers.0.self_attn.q_proj.weight", "model.layers.0.mlp.shared_expert.down_proj.weight",
			"model.layers.0.mlp.shared_expert_gate.weight", "model.layers.1.self_attn.o_proj.weight",
			"model.layers.11.self_attn.o_proj.weight", "model.layers.2.mlp.down_proj.weight"}},
	} {
		if got := bnbLoadTargets(names, rank, c.skip); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("skip %q: targets %v, want %v", c.skip, got, c.want)
		}
	}
}

// TestLoadInHeadRefused: where transformers would quantize the LM head
// (llm_int8_skip_modules given without lm_head), load_in_4bit and
// load_in_8bit refuse a tied head as bad input naming the fix; naming
// lm_head loads.
func TestLoadInHeadRefused(t *testing.T) {
	tied := filepath.Join(testdata, "bnb_load", "qwen2-tied")
	cfg, err := LoadConfig(tied)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		open func(skip []string) error
	}{
		{"load_in_4bit, tied head", func(skip []string) error {
			q, _ := LoadIn4Bit("nf4", false, "")
			q.SkipModules = skip
			b, err := openLoadIn4Bit(tied, cfg, q)
			if b != nil {
				b.Close()
			}
			return err
		}},
		{"load_in_8bit, tied head", func(skip []string) error {
			q, _ := LoadIn8Bit(6, skip)
			s, err := openLoadIn8Bit(tied, cfg, q)
			if s != nil {
				s.Close()
			}
			return err
		}},
	} {
		err := c.open([]string{"down_proj"})
		if !errs.IsBadInput(err) || !strings.Contains(fmt.Sprint(err), "add lm_head to llm_int8_skip_modules") {
			t.Errorf("%s, skip [down_proj]: %v, want bad input naming the fix", c.name, err)
		}
		if err := c.open([]string{"down_proj", "lm_head"}); err != nil {
			t.Errorf("%s, skip [down_proj lm_head]: %v", c.name, err)
		}
	}
}

// TestWriteLoadIn4Bit: the checkpoint WriteLoadIn4Bit writes holds the
// tensors transformers' save_pretrained writes after load_in_4bit
// (form_<q>.json) and reads back as a pre-quantized checkpoint.
func TestWriteLoadIn4Bit(t *testing.T) {
	src := filepath.Join(testdata, "bnb_load", "llama")
	for _, quant := range bnbLoadQuants {
		t.Run(quant, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"config.json", "model.safetensors"} {
				data, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			q := bnbLoadConfig(t, quant)
			if err := WriteLoadIn4Bit(dir, q); err != nil {
				t.Fatal(err)
			}
			set, err := safetensors.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			want := readForm(t, filepath.Join(src, "form_"+quant+".json"))
			if got := set.Names(); len(got) != len(want) {
				t.Errorf("%d tensors written, transformers saves %d", len(got), len(want))
			}
			for name, sum := range want {
				raw, err := set.Bytes(name)
				if err != nil {
					t.Fatal(err)
				}
				h := sha256.Sum256(raw)
				if hex.EncodeToString(h[:]) != sum {
					t.Errorf("%s differs from transformers' save_pretrained", name)
				}
			}
			pre, err := newBnbSet(set, q)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(pre.Quantized()); n != 14 {
				t.Errorf("%d quantized weights read back, want 14", n)
			}
		})
	}
}

// TestQuantizeBlockwiseGolden: double quantization's 8-bit step is
// bitsandbytes' CPU quantize_blockwise bit for bit (blockwise.safetensors,
// loadin4bit_golden.py): its table lookup picks another code than the
// nearest for values beside the midpoints and near 0, and gives a block of
// zeros codes 0.
func TestQuantizeBlockwiseGolden(t *testing.T) {
	set, err := safetensors.OpenFile(filepath.Join(testdata, "bnb_load", "blockwise.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	for _, name := range []string{"uniform", "cubed", "midpoints", "zeros_ragged"} {
		x := mustF32(t, set, name+".x")
		want, err := set.Bytes(name + ".codes")
		if err != nil {
			t.Fatal(err)
		}
		wantAbsmax := mustF32(t, set, name+".absmax")
		codes, absmax := quantizeBlockwise(x, &dynamicMap, bnbNestedBlocksize)
		off := 0
		for i := range codes {
			if codes[i] != want[i] {
				off++
			}
		}
		if off > 0 {
			t.Errorf("%s: %d of %d codes differ from bitsandbytes (first at %d)", name, off, len(codes), firstDiff(codes, want))
		}
		for i := range absmax {
			if math.Float32bits(absmax[i]) != math.Float32bits(wantAbsmax[i]) {
				t.Errorf("%s: absmax[%d] = %g, bitsandbytes %g", name, i, absmax[i], wantAbsmax[i])
			}
		}
	}
}
