package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/synth"
)

// synthPresets are the shapes of real models, for size and speed tests.
var synthPresets = map[string]synth.ModelOptions{
	"tiny": {Arch: "llama", Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 192, Vocab: 512,
		RopeTheta: 10000, MaxPositions: 2048, BOS: 1, EOS: 2},
	"qwen2.5-0.5b": {Arch: "qwen2", Hidden: 896, Layers: 24, Heads: 14, KVHeads: 2, Intermediate: 4864, Vocab: 151936,
		Tie: true, RopeTheta: 1e6, MaxPositions: 32768, BOS: 151643, EOS: 151645},
	"llama3.2-1b": {Arch: "llama", Hidden: 2048, Layers: 16, Heads: 32, KVHeads: 8, Intermediate: 8192, Vocab: 128256,
		Tie: true, RopeTheta: 500000, RMSNormEps: 1e-5, MaxPositions: 131072, BOS: 128000, EOS: 128001,
		RopeScaling: &models.RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 8192}},
	"llama3.2-3b": {Arch: "llama", Hidden: 3072, Layers: 28, Heads: 24, KVHeads: 8, Intermediate: 8192, Vocab: 128256,
		Tie: true, RopeTheta: 500000, RMSNormEps: 1e-5, MaxPositions: 131072, BOS: 128000, EOS: 128001,
		RopeScaling: &models.RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 8192}},
	"llama3.1-8b": {Arch: "llama", Hidden: 4096, Layers: 32, Heads: 32, KVHeads: 8, Intermediate: 14336, Vocab: 128256,
		RopeTheta: 500000, RMSNormEps: 1e-5, MaxPositions: 131072, BOS: 128000, EOS: 128001,
		RopeScaling: &models.RopeScaling{Type: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 8192}},
}

// synthPresetNames lists the presets for help and errors.
const synthPresetNames = "tiny, qwen2.5-0.5b or llama3.2-1b, or a larger Llama shape: llama3.2-3b, llama3.1-8b"

// runSynthModel implements "goeval synth model": a deterministic
// random-weight checkpoint in the Hugging Face layout.
func runSynthModel(args []string) error {
	o, help, err := parseSynthModel(args)
	if help || err != nil {
		return err
	}
	if err := checkOutFolder(o.Out); err != nil {
		return err
	}
	if err := synth.Model(o); err != nil {
		return err
	}
	quant := ""
	if o.Quantize != "" {
		quant = ", quantized " + o.Quantize
	}
	fmt.Fprintf(os.Stderr, "goeval synth model: wrote %s (%s, hidden %d, %d layers, vocab %d, %s%s)\n", o.Out, o.Arch, o.Hidden, o.Layers, o.Vocab, o.DType, quant)
	return nil
}

// parseSynthModel turns synth model's flags into the options of
// synth.Model (help: -h was given).
func parseSynthModel(args []string) (o synth.ModelOptions, help bool, err error) {
	fs := flag.NewFlagSet("synth model", flag.ContinueOnError)
	o = synthPresets["tiny"]
	preset := fs.String("preset", "", "start from a model shape: "+synthPresetNames+" (tiny is the default shape; llama3.1-8b is 16 GB in --dtype bf16, written a tensor at a time); other flags override it")
	fs.StringVar(&o.Arch, "arch", o.Arch, "architecture: "+strings.Join(synth.Archs(), ", "))
	fs.IntVar(&o.Hidden, "hidden", o.Hidden, "hidden size")
	fs.IntVar(&o.Layers, "layers", o.Layers, "number of decoder layers")
	fs.IntVar(&o.Heads, "heads", o.Heads, "attention heads")
	fs.IntVar(&o.KVHeads, "kv-heads", o.KVHeads, "key/value heads (grouped-query attention; must divide --heads)")
	fs.IntVar(&o.Intermediate, "intermediate", o.Intermediate, "MLP intermediate size")
	fs.IntVar(&o.Vocab, "vocab", o.Vocab, "vocabulary size (raised to cover --tokenizer's ids)")
	fs.IntVar(&o.HeadDim, "head-dim", 0, "attention head size (0 = hidden/heads)")
	fs.BoolVar(&o.Tie, "tie", o.Tie, "tie lm_head to the token embeddings (no lm_head.weight)")
	fs.Float64Var(&o.RopeTheta, "rope-theta", o.RopeTheta, "rotary embedding base")
	scaling := fs.String("rope-scaling", "", "rope scaling: '' (none), llama3, or longrope (--arch phi3: Phi-3.5's LongRoPE, seeded short and long factors)")
	fs.Float64Var(new(float64), "rope-factor", 32, "llama3 rope scaling factor")
	fs.Float64Var(new(float64), "rope-low", 1, "llama3 rope scaling low_freq_factor")
	fs.Float64Var(new(float64), "rope-high", 4, "llama3 rope scaling high_freq_factor")
	fs.IntVar(new(int), "rope-original", 8192, "llama3 and longrope scaling: original_max_position_embeddings")
	fs.IntVar(&o.MaxPositions, "max-positions", o.MaxPositions, "max_position_embeddings")
	fs.IntVar(&o.SlidingWindow, "sliding-window", 0, "sliding_window (mistral, phi3, gemma2, gemma3, mixtral, qwen2moe, qwen3moe; 0 = none)")
	fs.IntVar(&o.MoE.Experts, "experts", 0, "mixture-of-experts archs: number of experts (0 = 4)")
	fs.IntVar(&o.MoE.PerToken, "experts-per-token", 0, "mixture-of-experts archs: num_experts_per_tok (0 = 2)")
	fs.IntVar(&o.MoE.ExpertIntermediate, "expert-intermediate", 0, "qwen2moe, qwen3moe: moe_intermediate_size (0 = intermediate/2)")
	fs.IntVar(&o.MoE.SharedIntermediate, "shared-intermediate", 0, "qwen2moe: shared_expert_intermediate_size (0 = intermediate)")
	fs.BoolVar(&o.MoE.NormTopK, "norm-topk", false, "qwen2moe, qwen3moe, olmoe: norm_topk_prob")
	fs.IntVar(&o.MoE.SparseStep, "sparse-step", 0, "qwen2moe, qwen3moe: decoder_sparse_step (0 = 1)")
	fs.Uint64Var(&o.Seed, "seed", 0, "random seed: the same flags and seed give byte-identical files")
	fs.StringVar(&o.DType, "dtype", "f32", "weight dtype: f32, bf16 or f16")
	fs.IntVar(&o.Shards, "shards", 1, "write N shards plus model.safetensors.index.json")
	fs.StringVar(&o.TokenizerDir, "tokenizer", "", "copy tokenizer.json/tokenizer_config.json from DIR and take vocab and bos/eos ids from it")
	fs.IntVar(&o.BOS, "bos", o.BOS, "bos_token_id (ignored with --tokenizer)")
	fs.IntVar(&o.EOS, "eos", o.EOS, "eos_token_id (ignored with --tokenizer)")
	fs.StringVar(&o.Out, "out", "", "output directory (created)")
	fs.Float64Var(&o.LogitScale, "logit-scale", 0, "multiply the LM head (or tied embeddings) by this factor, scaling every logit: a diverged checkpoint for numerics tests (0 = off)")
	fs.BoolVar(&o.NaNWeights, "nan-weights", false, "write every weight as NaN: a broken checkpoint for tests")
	fs.StringVar(&o.Quantize, "quantize", "", "write a pre-quantized checkpoint, as transformers saves the float one after load_in_4bit with bitsandbytes: "+strings.Join(synth.QuantizeKinds, ", ")+" (-dq: double quantization); the same seed without --quantize gives the float checkpoint it came from")
	setUsage(fs, "Usage: goeval synth model [--preset NAME] [--arch A --hidden N ...] --seed N --out DIR\n\nWrites config.json, generation_config.json and model.safetensors (random weights) in the Hugging Face layout.\n\nFlags:")
	if help, err := parseFlags(fs, args); help || err != nil {
		return o, help, err
	}
	if fs.NArg() > 0 {
		return o, false, errs.BadInputf("unexpected argument %q", fs.Arg(0))
	}
	if err := applyPreset(fs, &o, *preset); err != nil {
		return o, false, err
	}
	return o, false, applyRopeScaling(fs, &o, *scaling)
}

// applyPreset replaces o with the preset, then re-applies the flags the
// user set explicitly so they override it.
func applyPreset(fs *flag.FlagSet, o *synth.ModelOptions, name string) error {
	if name == "" {
		return nil
	}
	p, ok := synthPresets[name]
	if !ok {
		return errs.BadInputf("--preset %q: use %s", name, synthPresetNames)
	}
	explicit := map[string]string{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = f.Value.String() })
	keep := *o
	*o = p
	o.Seed, o.DType, o.Shards, o.TokenizerDir, o.Out, o.SlidingWindow = keep.Seed, keep.DType, keep.Shards, keep.TokenizerDir, keep.Out, keep.SlidingWindow
	var err error
	for name, v := range explicit {
		if name != "preset" && err == nil {
			err = fs.Set(name, v)
		}
	}
	return err
}

// applyRopeScaling turns --rope-scaling llama3 and its factor flags into
// o.RopeScaling; an explicit --rope-scaling ” removes a preset's scaling.
func applyRopeScaling(fs *flag.FlagSet, o *synth.ModelOptions, kind string) error {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "rope-scaling" })
	get := func(name string) float64 {
		v := fs.Lookup(name).Value.(flag.Getter).Get()
		if i, ok := v.(int); ok {
			return float64(i)
		}
		return v.(float64)
	}
	switch strings.ToLower(kind) {
	case "":
		if set {
			o.RopeScaling = nil
		}
	case "llama3":
		o.RopeScaling = &models.RopeScaling{Type: "llama3", Factor: get("rope-factor"), LowFreqFactor: get("rope-low"),
			HighFreqFactor: get("rope-high"), OriginalMaxPositionEmbeddings: int(get("rope-original"))}
	case "longrope":
		if o.Arch != "phi3" {
			return errs.BadInputf("--rope-scaling longrope is Phi-3.5's: use it with --arch phi3")
		}
		orig := int(get("rope-original"))
		if orig <= 0 || orig >= o.MaxPositions {
			return errs.BadInputf("--rope-scaling longrope: --rope-original %d must be positive and below --max-positions %d", orig, o.MaxPositions)
		}
		o.RopeScaling = &models.RopeScaling{Type: "longrope", OriginalMaxPositionEmbeddings: orig}
	default:
		return errs.BadInputf("--rope-scaling %q: use llama3 or longrope (phi3), or leave it empty", kind)
	}
	return nil
}
