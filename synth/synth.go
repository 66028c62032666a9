package synth

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
	"github.com/x448/float16"
)

// ModelOptions describes a random-weight checkpoint for Model. Zero values
// of optional fields mean: HeadDim = Hidden/Heads, KVHeads = Heads,
// RopeTheta 10000, MaxPositions 2048, RMSNormEps 1e-6, DType "f32", one
// file. BOS and EOS are used as given (the command line defaults to 1, 2).
type ModelOptions struct {
	Arch                                                         string // one of Archs()
	Hidden, Layers, Heads, KVHeads, Intermediate, Vocab, HeadDim int
	Tie                                                          bool
	RopeTheta, RMSNormEps                                        float64
	RopeScaling                                                  *models.RopeScaling // nil, or llama3/linear
	MaxPositions                                                 int
	SlidingWindow                                                int // 0 = none; mistral, phi3, gemma and the MoEs
	Seed                                                         uint64
	DType                                                        string // f32 | bf16 | f16
	Shards                                                       int    // >1: model-0000k-of-0000N.safetensors + index
	// TokenizerDir, if set, supplies tokenizer.json/tokenizer_config.json
	// (copied), the vocabulary size (raised to cover every token id) and the
	// bos/eos ids.
	TokenizerDir string
	BOS, EOS     int
	Out          string
	// LogitScale, when not 0 or 1, multiplies the LM head (lm_head.weight,
	// or the token embeddings when tied) by this factor after rounding, so
	// every logit is scaled by it: a diverged checkpoint whose logits reach
	// the thousands, for testing numerics (exp overflows without the max
	// subtracted).
	LogitScale float64
	// NaNWeights writes every weight as NaN: a broken checkpoint.
	NaNWeights bool
	// MoE shapes the mixture-of-experts architectures (archs_moe.go).
	MoE MoEOptions
	// Quantize, when set (QuantizeKinds), writes the checkpoint as
	// transformers saves it after load_in_4bit (quantize.go).
	Quantize string
}

var synthArchs = map[string][2]string{
	"llama":   {"LlamaForCausalLM", "llama"},
	"mistral": {"MistralForCausalLM", "mistral"},
	"qwen2":   {"Qwen2ForCausalLM", "qwen2"},
	"qwen3":   {"Qwen3ForCausalLM", "qwen3"},
}

var synthDTypes = map[string][2]string{"f32": {"F32", "float32"}, "bf16": {"BF16", "bfloat16"}, "f16": {"F16", "float16"}}

// Model writes a deterministic random-weight checkpoint in the Hugging Face
// layout to o.Out: config.json, generation_config.json, model.safetensors
// (or shards + index) and, with TokenizerDir, the tokenizer files. The same
// options give byte-identical files on every machine: each tensor has its
// own PCG stream seeded by (Seed, FNV-1a of its name) and only exactly
// rounded float operations turn its bits into values. Tensors are generated
// and written one at a time.
func Model(o ModelOptions) error {
	if err := o.resolve(); err != nil {
		return err
	}
	cfgJSON, err := o.configJSON()
	if err != nil {
		return err
	}
	cfg, err := models.ParseConfig(filepath.Join(o.Out, models.ConfigFile), cfgJSON)
	if err != nil {
		return fmt.Errorf("synth produced an invalid config (a bug): %w", err)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(o.Out, models.ConfigFile), cfgJSON); err != nil {
		return err
	}
	gen, _ := json.MarshalIndent(map[string]any{"bos_token_id": o.BOS, "eos_token_id": o.EOS, "do_sample": false}, "", "  ")
	if err := writeFileAtomic(filepath.Join(o.Out, "generation_config.json"), append(gen, '\n')); err != nil {
		return err
	}
	if err := o.copyTokenizer(); err != nil {
		return err
	}
	if err := o.writeWeights(cfg); err != nil {
		return err
	}
	return o.quantizeWeights()
}

// ConfigJSON is the config.json Model writes for o (defaults filled, the
// tokenizer's ids applied), without writing anything.
func ConfigJSON(o ModelOptions) ([]byte, error) {
	if err := o.resolve(); err != nil {
		return nil, err
	}
	return o.configJSON()
}

// resolve fills defaults, applies the tokenizer and checks the options.
func (o *ModelOptions) resolve() error {
	if _, ok := synthArchs[o.Arch]; !ok {
		var more []string
		for _, a := range Archs() {
			if a != "llama" && a != "mistral" && a != "qwen2" && a != "qwen3" {
				more = append(more, a)
			}
		}
		return errs.BadInputf("--arch %q: use llama, mistral, qwen2 or qwen3 (or %s)", o.Arch, strings.Join(more, ", "))
	}
	if o.DType == "" {
		o.DType = "f32"
	}
	if _, ok := synthDTypes[o.DType]; !ok {
		return errs.BadInputf("--dtype %q: use f32, bf16 or f16", o.DType)
	}
	if o.Out == "" {
		return errs.BadInputf("--out is required")
	}
	if o.Hidden <= 0 || o.Layers <= 0 || o.Heads <= 0 || o.Intermediate <= 0 || o.Vocab <= 0 {
		return errs.BadInputf("--hidden, --layers, --heads, --intermediate and --vocab must be positive")
	}
	if o.KVHeads == 0 {
		o.KVHeads = o.Heads
	}
	if o.HeadDim == 0 {
		if o.Hidden%o.Heads != 0 {
			return errs.BadInputf("--hidden %d is not divisible by --heads %d; give --head-dim", o.Hidden, o.Heads)
		}
		o.HeadDim = o.Hidden / o.Heads
	}
	if o.RopeTheta == 0 {
		o.RopeTheta = 10000
	}
	if o.RMSNormEps == 0 {
		o.RMSNormEps = 1e-6
	}
	if o.MaxPositions == 0 {
		o.MaxPositions = 2048
	}
	if o.TokenizerDir != "" {
		if err := o.applyTokenizer(); err != nil {
			return err
		}
	}
	if o.BOS < 0 || o.BOS >= o.Vocab || o.EOS < 0 || o.EOS >= o.Vocab {
		return errs.BadInputf("bos id %d / eos id %d must be below --vocab %d", o.BOS, o.EOS, o.Vocab)
	}
	if o.Shards < 0 {
		return errs.BadInputf("--shards must not be negative")
	}
	return o.MoE.resolve(o)
}

// applyTokenizer sets the vocabulary size and bos/eos ids from the
// tokenizer. Without a bos_token (Qwen) it uses pad_token, then eos.
func (o *ModelOptions) applyTokenizer() error {
	ti, err := models.ReadTokenizerInfo(o.TokenizerDir)
	if err != nil {
		return err
	}
	o.Vocab = max(o.Vocab, ti.VocabSize)
	o.EOS = ti.EOSID
	if o.EOS < 0 {
		return errs.BadInputf("%s: tokenizer_config.json names no eos_token", o.TokenizerDir)
	}
	o.BOS = ti.BOSID
	if o.BOS < 0 {
		o.BOS = ti.PadID
	}
	if o.BOS < 0 {
		o.BOS = o.EOS
	}
	return nil
}

// configJSON renders config.json with the keys transformers writes for the
// architecture (sorted, two-space indent, like save_pretrained).
func (o *ModelOptions) configJSON() ([]byte, error) {
	names := synthArchs[o.Arch]
	m := map[string]any{
		"architectures": []string{names[0]}, "model_type": names[1],
		"hidden_size": o.Hidden, "intermediate_size": o.Intermediate, "num_hidden_layers": o.Layers,
		"num_attention_heads": o.Heads, "num_key_value_heads": o.KVHeads, "head_dim": o.HeadDim,
		"vocab_size": o.Vocab, "max_position_embeddings": o.MaxPositions, "hidden_act": "silu",
		"rms_norm_eps": o.RMSNormEps, "rope_theta": o.RopeTheta, "rope_scaling": nil,
		"tie_word_embeddings": o.Tie, "bos_token_id": o.BOS, "eos_token_id": o.EOS,
		"torch_dtype": synthDTypes[o.DType][1], "initializer_range": 0.02,
		"attention_dropout": 0.0, "use_cache": true,
	}
	if o.RopeScaling != nil {
		m["rope_scaling"] = o.RopeScaling
	}
	switch o.Arch {
	case "llama":
		m["attention_bias"], m["mlp_bias"], m["pretraining_tp"] = false, false, 1
	case "mistral":
		m["sliding_window"] = nil
		if o.SlidingWindow > 0 {
			m["sliding_window"] = o.SlidingWindow
		}
	case "qwen2", "qwen3":
		m["use_sliding_window"], m["sliding_window"], m["max_window_layers"] = false, nil, o.Layers
		if o.Arch == "qwen3" {
			m["attention_bias"] = false
		}
	}
	if f := synthConfigHooks[o.Arch]; f != nil {
		f(o, m) // phi, phi3, gemma2, gemma3 (archs.go), the MoEs (archs_moe.go)
	}
	if o.SlidingWindow > 0 && o.Arch != "mistral" && synthConfigHooks[o.Arch] == nil {
		return nil, errs.BadInputf("--sliding-window is only supported for mistral")
	}
	if err := o.addQuantizationConfig(m); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("synth config: %w", err)
	}
	return append(b, '\n'), nil
}

// copyTokenizer copies the tokenizer files that exist in TokenizerDir.
func (o *ModelOptions) copyTokenizer() error {
	if o.TokenizerDir == "" {
		return nil
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"} {
		data, err := os.ReadFile(filepath.Join(o.TokenizerDir, f))
		if os.IsNotExist(err) && f != "tokenizer.json" {
			continue
		} else if err != nil {
			return errs.BadInputf("--tokenizer: %v", err)
		}
		if err := writeFileAtomic(filepath.Join(o.Out, f), data); err != nil {
			return err
		}
	}
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// synthTensor is one tensor to generate: std of its noise around mean.
type synthTensor struct {
	name      string
	shape     []int
	mean, std float64
	scale     float64 // 0: 1; NaN: every value NaN (ModelOptions.LogitScale, NaNWeights)
}

// synthPlan lists the checkpoint's tensors in name order with their
// initialisation: Linear and embedding weights N(0, σ²) with σ =
// clamp(1/√hidden, 0.02, 0.1) so tiny models give spread-out log-probs,
// biases N(0, 0.02²), norm weights 1 + N(0, 0.05²).
func synthPlan(c *models.Config) []synthTensor {
	std := math.Min(0.1, math.Max(0.02, 1/math.Sqrt(float64(c.HiddenSize))))
	var plan []synthTensor
	for name, shape := range models.ExpectedTensors(c) {
		t := synthTensor{name: name, shape: shape, std: std}
		switch {
		case strings.HasSuffix(name, "norm.weight"):
			t.mean, t.std = 1, 0.05
		case strings.HasSuffix(name, ".bias"):
			t.std = 0.02
		}
		plan = append(plan, t)
	}
	sort.Slice(plan, func(i, j int) bool { return plan[i].name < plan[j].name })
	return plan
}

// writeWeights streams the tensors into one file or o.Shards shards of
// about equal size, removing a stale checkpoint of the other layout.
func (o *ModelOptions) writeWeights(c *models.Config) error {
	plan := o.scalePlan(synthPlan(c))
	dt := synthDTypes[o.DType][0]
	meta := map[string]string{"format": "pt", "generator": "goeval synth model", "seed": strconv.FormatUint(o.Seed, 10)}
	single := filepath.Join(o.Out, safetensors.SingleFile)
	index := filepath.Join(o.Out, safetensors.IndexFile)
	if o.Shards <= 1 {
		os.Remove(index)
		return o.writeStream(single, plan, dt, meta)
	}
	os.Remove(single)
	groups, total := splitShards(plan, o.Shards, safetensors.DTypeSize(dt))
	wm := map[string]string{}
	for i, g := range groups {
		name := safetensors.ShardName(i+1, len(groups))
		if err := o.writeStream(filepath.Join(o.Out, name), g, dt, meta); err != nil {
			return err
		}
		for _, t := range g {
			wm[t.name] = name
		}
	}
	return safetensors.WriteIndex(index, wm, total)
}

// splitShards cuts plan (in order) into n groups of about equal bytes.
func splitShards(plan []synthTensor, n int, width int64) ([][]synthTensor, int64) {
	n = min(n, len(plan))
	var total int64
	sizes := make([]int64, len(plan))
	for i, t := range plan {
		sizes[i] = numel(t.shape) * width
		total += sizes[i]
	}
	groups := make([][]synthTensor, 0, n)
	var acc int64
	start := 0
	for i := range plan {
		acc += sizes[i]
		left := len(plan) - i - 1   // tensors not yet placed
		need := n - len(groups) - 1 // groups still to fill after this one
		if need > 0 && left >= need && (acc*int64(n) >= total*int64(len(groups)+1) || left == need) {
			groups = append(groups, plan[start:i+1])
			start = i + 1
		}
	}
	return append(groups, plan[start:]), total
}

// scalePlan applies LogitScale to the LM head and NaNWeights to every
// tensor.
func (o *ModelOptions) scalePlan(plan []synthTensor) []synthTensor {
	head := "lm_head.weight"
	if o.Tie {
		head = "model.embed_tokens.weight"
	}
	for i := range plan {
		switch {
		case o.NaNWeights:
			plan[i].scale = math.NaN()
		case plan[i].name == head && o.LogitScale != 0:
			plan[i].scale = o.LogitScale
		}
	}
	return plan
}

func numel(shape []int) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= int64(d)
	}
	return n
}

// streams are plan's tensors for safetensors.WriteStream, generated ahead
// (ahead.go), and the function that stops their generation once the file
// is written or has failed. WriteStream fills tensors of one dtype in name
// order, plan's order (synthPlan).
func (o *ModelOptions) streams(plan []synthTensor, dt string) ([]safetensors.StreamTensor, func()) {
	a := newAhead(plan, dt, o.Seed, safetensors.DTypeSize(dt))
	out := make([]safetensors.StreamTensor, len(plan))
	for i, t := range plan {
		out[i] = safetensors.StreamTensor{Name: t.name, DType: dt, Shape: t.shape,
			Fill: func(w io.Writer) error { return a.fill(i, w) }}
	}
	return out, a.stop
}

// writeStream writes plan's tensors to path.
func (o *ModelOptions) writeStream(path string, plan []synthTensor, dt string, meta map[string]string) error {
	st, stop := o.streams(plan, dt)
	defer stop()
	return safetensors.WriteStream(path, st, meta)
}

// fillTensor writes t's values in chunks. The normal deviate is the
// Irwin-Hall sum of four uniforms (mean 2, variance 1/3), rescaled; the
// explicit float64 conversions forbid fused multiply-adds, so every
// platform rounds identically.
func fillTensor(w io.Writer, t synthTensor, dt string, seed uint64) error {
	h := fnv.New64a()
	h.Write([]byte(t.name))
	rng := rand.NewPCG(seed, h.Sum64())
	const chunk = 1 << 16
	width := int(safetensors.DTypeSize(dt))
	buf := make([]byte, chunk*width)
	for left := numel(t.shape); left > 0; {
		k := int(min(left, chunk))
		for i := 0; i < k; i++ {
			var sum float64
			for j := 0; j < 4; j++ {
				sum += float64(rng.Uint64()>>11) * 0x1p-53
			}
			z := float64((sum - 2) * math.Sqrt(3))
			v := float32(t.mean + float64(t.std*z))
			if t.scale != 0 {
				v = float32(float64(v) * t.scale)
			}
			switch dt {
			case "F32":
				binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
			case "BF16":
				binary.LittleEndian.PutUint16(buf[2*i:], safetensors.Float32ToBF16(v))
			case "F16":
				binary.LittleEndian.PutUint16(buf[2*i:], float16.Fromfloat32(v).Bits())
			}
		}
		if _, err := w.Write(buf[:k*width]); err != nil {
			return err
		}
		left -= int64(k)
	}
	return nil
}
