package engine

import (
	"fmt"
	"io"

	"github.com/gomlx/gomlx/backends"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
)

// Tokenizer is what the engine needs from a tokenizer (models/tokenizer
// satisfies it). Without one, the engine scores token-id requests only.
type Tokenizer interface {
	// Encode tokenizes text; addSpecial applies the tokenizer's default
	// special tokens (e.g. Llama's BOS), as Hugging Face's
	// add_special_tokens=True.
	Encode(text string, addSpecial bool) []int32
	// Decode turns ids back into text, optionally without special tokens.
	Decode(ids []int32, skipSpecial bool) string
	// BOS and EOS return the special token ids; ok is false when the
	// tokenizer has none.
	BOS() (id int32, ok bool)
	EOS() (id int32, ok bool)
}

// Options configure Open. The zero value is device auto, f32, batch 8 and
// the model's max_position_embeddings.
type Options struct {
	// Device is "auto" (the default, "" = $GOEVAL_DEVICE else auto: the
	// fastest device here, see ResolveDevice), "cpu" (goeval's pure-Go
	// backend, internal/gocpu; bfloat16 there is weight-only: bf16 weights,
	// f32 compute), "xla-cpu" or "cuda" (XLA with a PJRT plugin).
	Device string
	// PluginProgress receives the progress bar of a PJRT plugin download
	// that auto or xla-cpu starts (nil: none).
	PluginProgress io.Writer
	// Backend, when set, is a GoMLX backend spec that overrides Device:
	// "gocpu", "go" (simplego), "go:dotgeneral_small",
	// "xla:/abs/path/pjrt_plugin.so".
	Backend string
	// DType is the model's dtype: "float32" (the default, ""), "bfloat16",
	// "float16" (spellings: ParseDType) or "auto": config.json's
	// torch_dtype on cuda, float32 on a CPU device (ResolveDType, per
	// model). In bfloat16 and float16 the weights are rounded to it from
	// any checkpoint dtype (to nearest, ties to even) and the graphs
	// compute in it, products accumulating in float32, with norms,
	// attention's softmax and the rotary tables in float32 and the logits
	// (in the dtype, as transformers returns them) turned into float64
	// log-probs. A backend that does not compute in the dtype computes in
	// float32 on the rounded weights instead (dtype.go): goeval's pure-Go
	// backend has neither; there bfloat16 is weight-only (the weight
	// matrices stay bfloat16 in memory, widened inside the float32
	// products). Engine.DType is the resolved name.
	DType string
	// Dequantize4Bit dequantizes a 4-bit checkpoint (bitsandbytes nf4/fp4,
	// GPTQ and AWQ 4-bit) into weights of the compute dtype at load
	// (--dequantize-4bit). Unset, when no adapter is merged, the cpu device
	// keeps its weight matrices packed (an eighth of the bytes; decode
	// reads the codes, internal/gocpu/q4.go) in float32 and bfloat16
	// (weight-only: the packed values rounded to bfloat16 where they are
	// looked up), and XLA devices keep them as codes and scales that each
	// graph dequantizes where it multiplies (models/q4graph.go: the same
	// values, bit for bit) — on xla-cpu only where the dense weights do not
	// fit half the memory available (Keep4BitPacked).
	Dequantize4Bit bool
	// Keep4BitPacked keeps a 4-bit checkpoint's weights packed on
	// xla-cpu, where by default they are dequantized at load when the
	// dense weights fit half the memory available (q4fit.go: packed, each
	// decode step dequantizes the whole model in its graphs, about 5×
	// slower). Dequantize4Bit wins over it.
	Keep4BitPacked bool
	// Dequantize8Bit computes a bitsandbytes 8-bit checkpoint (or
	// LoadIn8Bit) as the dense model of its dequantized weights. Unset,
	// its weights are multiplied as LLM.int8 does (transformers'
	// Linear8bitLt: activations quantized to int8 per row, outlier
	// columns above llm_int8_threshold apart), on every device.
	Dequantize8Bit bool
	// BatchSize is the number of rows per forward pass (default 8).
	BatchSize int
	// MaxLength is lm-eval's max_length: inputs are left-truncated to it and
	// rolling windows have this size. 0: config max_position_embeddings,
	// else 2048.
	MaxLength int
	// ChatTemplateArgs are more chat template variables (lm-eval's
	// chat_template_args, with enable_thinking): ApplyChatTemplate passes
	// them as transformers' apply_chat_template passes keyword arguments.
	ChatTemplateArgs map[string]any
	// Tokenizer, when set, replaces the checkpoint's tokenizer.json for
	// string requests (Open loads that one otherwise).
	Tokenizer Tokenizer
	// PrefixToken overrides the token used as context for an empty context
	// and as the first rolling window's prefix (lm-eval prefix_token_id).
	// nil: the tokenizer's BOS, else the tokenizer's EOS (config.json's ids
	// only without a tokenizer).
	PrefixToken *int32
	// AddBOSToken is lm-eval's add_bos_token model argument: when set, it is
	// add_special_tokens for every encoded string (nil: the tokenizer's
	// default). A string starting with the prefix (or, for generation, BOS)
	// text never gets special tokens.
	AddBOSToken *bool
	// Adapters are PEFT LoRA adapter directories (adapter.go). AdapterMode
	// is "merged" (default: added into the weights at load, one adapter) or
	// "separate" (applied in the graph; several adapters share the base
	// weights, the Engine applies the first, WithAdapter(i) the others).
	Adapters    []string
	AdapterMode string
	// LoadIn4Bit, when set (models.LoadIn4Bit), quantizes a float
	// checkpoint's Linear weights at load as transformers' load_in_4bit
	// does (bitsandbytes' quantize_4bit, nf4 or fp4, optionally double
	// quantized), then computes with them dequantized as for a
	// pre-quantized bitsandbytes checkpoint; a quantized checkpoint is
	// refused.
	LoadIn4Bit *models.Quantization
	// LoadIn8Bit, when set (models.LoadIn8Bit), quantizes a float
	// checkpoint's Linear weights at load as transformers' load_in_8bit
	// does (bitsandbytes' int8_vectorwise_quant of the float16 weights),
	// then computes with them as for a pre-quantized 8-bit checkpoint; a
	// quantized checkpoint is refused.
	LoadIn8Bit *models.Quantization
	// Packing is "on" (default) or "off": pack loglikelihood rows (requests
	// sharing a context or a few-shot prefix score it once; several
	// requests share a row; see plan/pack.go) and prefill a prompt prefix that
	// generation requests share once (genprefix.go). Scores are the same
	// either way (bit-identical on the pure-Go backend); "off" is for
	// comparisons.
	Packing string
	// PrefixCacheMB is the budget, in MiB, of the cached prefixes of packed
	// rows (prefixkv.go): 0 is DefaultPrefixCacheMB on goeval's pure-Go
	// backend and no cache on XLA devices (where the cache's extra shapes
	// each cost a compile), a positive value that budget on any device, a
	// negative value no cache (prefixes are then recomputed at the head of
	// each row).
	PrefixCacheMB int
	// SoftmaxDType is lm-eval's softmax_dtype model argument (lpround.go):
	// "" or "auto" is the model's dtype, as lm-eval's default; "float32"
	// keeps goeval's float32 log-softmax and float64 sums; "bfloat16" or
	// "float16" rounds each token's log-prob and each request's sum to it
	// and decides is_greedy on the rounded log-probs, as lm-eval does.
	SoftmaxDType string
	// CompileCache is the folder that keeps XLA's compiled executables
	// between runs (compilecache.go): "" is $GOEVAL_COMPILE_CACHE, else
	// <user cache dir>/goeval/xla; "off" keeps none. The pure-Go backend
	// compiles nothing worth keeping and ignores it.
	CompileCache string
	// Logf receives progress and compile messages; nil discards them.
	Logf func(format string, args ...any)
	// Warnf receives warnings about work that goes on regardless (a
	// compile cache that cannot be read or written); nil discards them.
	Warnf func(format string, args ...any)
	// DeviceNum is the backend's device the engine runs on (0: the first):
	// its weights are loaded there and its graphs run there. OpenReplicas
	// opens one engine per device.
	DeviceNum int
	// shared is the backend OpenReplicas' engines share (nil: Open creates
	// one).
	shared backends.Backend
}

// defaultBatchSize is the batch when Options.BatchSize is 0.
const defaultBatchSize = 8

// DefaultBatchSize is the rows per forward pass when Options.BatchSize is 0.
const DefaultBatchSize = defaultBatchSize

// logf forwards to Options.Logf when set.
func (o Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// Validate checks the options that can be checked without a model (batch
// size, max length, dtype, adapter mode, packing): commands call it before
// any work.
func (o Options) Validate() error { return o.validate() }

// validate checks the numeric options.
func (o Options) validate() error {
	if o.BatchSize < 0 {
		return errs.BadInputf("batch size %d must be ≥ 1", o.BatchSize)
	}
	if o.MaxLength < 0 {
		return errs.BadInputf("max length %d must be ≥ 1", o.MaxLength)
	}
	if _, err := ParseDType(o.DType); err != nil {
		return err
	}
	if _, err := models.ParseAdapterMode(o.AdapterMode); err != nil {
		return err
	}
	if _, err := lpRoundOf(o.SoftmaxDType); err != nil {
		return err
	}
	if p := o.Packing; p != "" && p != "on" && p != "off" {
		return errs.BadInputf("packing %q is not supported (use on or off)", p)
	}
	return nil
}

// packing reports whether loglikelihood rows are packed.
func (o Options) packing() bool { return o.Packing != "off" }

// String summarizes the options for logs.
func (o Options) String() string {
	return fmt.Sprintf("device=%q backend=%q dtype=%q batch=%d max_length=%d packing=%q prefix_cache_mb=%d", o.Device, o.Backend, o.DType, o.BatchSize, o.MaxLength, o.Packing, o.PrefixCacheMB)
}
