package models

import (
	"encoding/binary"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/safetensors"
)

// writeCheckpoint writes config.json and a model.safetensors holding
// exactly ExpectedTensors of it, random f32 values of about ±0.1 (norm
// weights about 1) drawn from seed in name order, each multiplied by
// scale[name] where given, and returns the folder.
func writeCheckpoint(t *testing.T, config string, seed uint64, scale map[string]float32) string {
	t.Helper()
	dir := t.TempDir()
	c, err := ParseConfig(filepath.Join(dir, ConfigFile), []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	var out []safetensors.Tensor
	want := ExpectedTensors(c)
	for _, name := range slices.Sorted(maps.Keys(want)) {
		shape := want[name]
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]byte, 4*n)
		for i := range n {
			v := float32(rng.NormFloat64() * 0.1)
			if strings.HasSuffix(name, "norm.weight") {
				v++
			}
			if s, ok := scale[name]; ok {
				v *= s
			}
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		}
		out = append(out, safetensors.Tensor{Name: name, DType: "F32", Shape: shape, Data: data})
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), out, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkGraphReadsEveryTensor loads the checkpoint in dir (LoadWeights
// checks that it holds exactly the declared tensors, and a graph reading
// an undeclared one panics) and builds a forward pass with the LM head:
// every loaded tensor must be read by the graph, so an architecture's
// tensor list and its graph name the same tensors.
func checkGraphReadsEveryTensor(t *testing.T, dir string) {
	t.Helper()
	tm := loadTestModel(t, dir, nil)
	g := NewGraph(tm.backend, "all weights")
	tokens := Parameter(g, "tokens", shapes.Make(dtypes.Int32, 1, 4))
	ctx := tm.ctx.Reuse()
	tm.model.Logits(ctx, tm.model.Forward(ctx, Inputs{Tokens: tokens}).Hidden)
	n := 0
	ctx.EnumerateVariables(func(v *context.Variable) {
		n++
		if !v.InUseByGraph(g) {
			t.Errorf("%s: tensor %s/%s is declared but the graph never reads it", tm.model.Config().Arch(), v.Scope(), v.Name())
		}
	})
	if want := len(ExpectedTensors(tm.model.Config())); n != want {
		t.Errorf("%s: %d variables loaded, %d tensors declared", tm.model.Config().Arch(), n, want)
	}
}

// TestTensorListMatchesGraph: for every architecture, the tensors it
// declares are the ones its graph reads (llama family with and without
// biases, q/k norms and tied embeddings; the Phi, Phi-3 and Gemma
// goldens).
func TestTensorListMatchesGraph(t *testing.T) {
	for _, extra := range []string{
		`"architectures":["LlamaForCausalLM"],"attention_bias":true,"tie_word_embeddings":false`,
		`"architectures":["Qwen2ForCausalLM"],"tie_word_embeddings":true`,
		`"architectures":["Qwen3ForCausalLM"],"head_dim":8`,
		`"architectures":["MistralForCausalLM"],"sliding_window":3`,
	} {
		checkGraphReadsEveryTensor(t, writeCheckpoint(t, tinyLlamaJSON(extra), 1, nil))
	}
	for _, name := range append([]string{"phi", "phi3", "phi35", "gemma2", "gemma3", "gemma3mm"}, moeGoldens...) {
		checkGraphReadsEveryTensor(t, filepath.Join(testdata, "archs", name))
	}
}

// tinyLlamaJSON is a tiny llama-family config.json (hidden 32, 2 layers, 4
// heads of 8, 2 KV heads, vocabulary 64) with extra keys.
func tinyLlamaJSON(extra string) string {
	return `{"hidden_size":32,"intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":4,
	"num_key_value_heads":2,"vocab_size":64,"max_position_embeddings":64,"rms_norm_eps":1e-5,` + extra + `}`
}
