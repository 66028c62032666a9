package models

import (
	"fmt"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
)

// Adapter modes (LoadOptions.AdapterMode).
const (
	// AdapterMerged adds scale·B·A into the base weights at load (default).
	// One adapter per load.
	AdapterMerged = "merged"
	// AdapterSeparate keeps the factors apart and computes x·Aᵀ·Bᵀ·scale in
	// the graph next to each base projection; several adapters share one
	// copy of the base weights (see WithAdapter).
	AdapterSeparate = "separate"
)

// ParseAdapterMode resolves an adapter mode ("" is AdapterMerged).
func ParseAdapterMode(mode string) (string, error) {
	switch mode {
	case "", AdapterMerged:
		return AdapterMerged, nil
	case AdapterSeparate:
		return AdapterSeparate, nil
	}
	return "", errs.BadInputf("adapter mode %q is not supported (use merged or separate)", mode)
}

// LoadOptions configure Load.
type LoadOptions struct {
	// DType is the dtype the weights are stored in, the graphs' compute
	// dtype: Float32, BFloat16 or Float16 (converted from any checkpoint
	// dtype, to nearest with ties to even).
	DType dtypes.DType
	// WeightDType, when set and not DType (BFloat16 or Float16 under a
	// Float32 DType, for a backend that computes in float32 only), is the
	// precision the weights hold: each weight (after a merged adapter) is
	// rounded to it. BFloat16 is weight-only bf16: the weight matrices
	// (every rank-2 ".weight": linear layers, the embedding, the LM head)
	// are stored in bfloat16 (half the memory; goeval's pure-Go backend
	// multiplies and gathers them without a float32 copy) and converted to
	// DType where the graphs use them (Param); the other tensors, and
	// Float16's matrices, are stored in DType. Separate-mode adapters are
	// not rounded.
	WeightDType dtypes.DType
	// Dequantize4Bit dequantizes a 4-bit checkpoint's weights at load on
	// every backend. Unset, a backend that multiplies by packed 4-bit
	// weights (goeval's pure-Go one) holds them packed (an eighth of
	// float32's bytes; decode reads the codes) where the compute dtype is
	// float32 (weights held in float32, or in bfloat16: the packed values
	// rounded to it), and XLA holds them packed in any compute dtype, as
	// codes and scales its graphs dequantize where they multiply
	// (q4graph.go: the load's values, bit for bit), where no adapter is
	// merged into them (separate-mode adapters run next to the packed
	// product): bitsandbytes nf4/fp4, and GPTQ and AWQ 4-bit weights whose
	// groups are of equal sizes (GroupQuant.Q4; desc_act's with their
	// input columns permuted).
	Dequantize4Bit bool
	// Dequantize4BitFits, with Dequantize4Bit unset, dequantizes a 4-bit
	// checkpoint's weights at load anyway when their dequantized bytes (in
	// the dtype the weights are held in) are at most this many; 0 never
	// does. The engine sets it on xla-cpu, whose graphs' dequantization
	// makes decode about 5× slower than dense weights.
	Dequantize4BitFits int64
	// Dequantize8Bit dequantizes a bitsandbytes 8-bit checkpoint's
	// weights and computes the dense model. Unset, they are kept as int8
	// codes and multiplied as LLM.int8 (transformers' Linear8bitLt)
	// does: int8_forward.go.
	Dequantize8Bit bool
	// Adapters are PEFT LoRA adapter directories; AdapterMode is
	// AdapterMerged (default: one adapter) or AdapterSeparate.
	Adapters    []string
	AdapterMode string
	// LoadIn4Bit, when set (models.LoadIn4Bit), quantizes a float
	// checkpoint at load as transformers' load_in_4bit does: each Linear
	// weight of the decoder goes through bitsandbytes' quantize_4bit into
	// the form a pre-quantized checkpoint has, then is dequantized like one
	// (bnb_loadin4bit.go). A quantized checkpoint is refused.
	LoadIn4Bit *Quantization
	// LoadIn8Bit, when set (models.LoadIn8Bit), quantizes a float
	// checkpoint at load as transformers' load_in_8bit does: each Linear
	// weight of the decoder goes through bitsandbytes'
	// int8_vectorwise_quant of its float16 values into the int8 codes and
	// row scales a pre-quantized 8-bit checkpoint holds, then is computed
	// like one (int8_load.go). A quantized checkpoint is refused.
	LoadIn8Bit *Quantization
	// Logf receives progress messages; nil discards them.
	Logf func(format string, args ...any)
}

// Loaded is a checkpoint loaded onto a backend.
type Loaded struct {
	// Config is the checkpoint's config.json.
	Config *Config
	// Model builds the graphs; with separate-mode adapters, adapter 0 is
	// active (WithAdapter selects another).
	Model Model
	// Context holds the weights (and separate-mode adapters) as variables
	// named after the checkpoint tensors.
	Context *context.Context
	// NumAdapters is the number of separate-mode adapters in Context.
	NumAdapters int
}

// Load reads the checkpoint in dir (config.json, safetensors) strictly and
// stores its weights, with LoRA adapters merged in or kept separate, on the
// backend's device 0. Bad checkpoints and adapters are errs.BadInput.
func Load(backend backends.Backend, dir string, o LoadOptions) (*Loaded, error) {
	mode, err := ParseAdapterMode(o.AdapterMode)
	if err != nil {
		return nil, err
	}
	if mode == AdapterMerged && len(o.Adapters) > 1 {
		return nil, errs.BadInputf("%d adapters in merged mode: merged mode takes one adapter; use adapter mode separate to serve several from one copy of the base weights", len(o.Adapters))
	}
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	model, err := New(cfg)
	if err != nil {
		return nil, err
	}
	set, o, err := openTensors(backend, dir, cfg, o)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	adapters, err := loadAdapters(set, o, mode)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Config: cfg, Model: model, Context: context.New()}
	// The root scope exists before any graph is built: ActiveAdapter's
	// InAbsPath("/") would otherwise add it to the context's scope map
	// while another graph, built at the same time, reads that map.
	l.Context.InAbsPath("/")
	var tf WeightTransform
	if mode == AdapterMerged && len(adapters) == 1 {
		tf = adapters[0].MergeInto
	}
	stored := int8Forward(set, o.Dequantize8Bit, tf != nil)
	if err := loadWeights(l.Context, backend, cfg, stored, o.weightDTypes(), tf); err != nil {
		l.Context.Finalize()
		return nil, err
	}
	if s, ok := stored.(*int8Set); ok {
		if err := s.storeScales(l.Context, backend); err != nil {
			l.Context.Finalize()
			return nil, err
		}
	}
	if mode == AdapterSeparate && len(adapters) > 0 {
		for i, a := range adapters {
			if err := LoadAdapterVariables(l.Context, backend, a, i, o.DType); err != nil {
				l.Context.Finalize()
				return nil, err
			}
		}
		l.NumAdapters, l.Model = len(adapters), WithAdapter(model, 0)
	}
	return l, nil
}

// openTensors opens dir's tensors for Load: as stored (OpenTensors) or
// quantized at load (o.LoadIn4Bit), decides Dequantize4BitFits (o comes
// back with Dequantize4Bit set where the dequantized weights fit) and logs
// what becomes of the quantized weights on backend.
func openTensors(backend backends.Backend, dir string, cfg *Config, o LoadOptions) (Tensors, LoadOptions, error) {
	var set Tensors
	q, how := cfg.Quantization, ""
	switch {
	case o.LoadIn4Bit != nil && o.LoadIn8Bit != nil:
		return nil, o, errs.BadInputf("load_in_4bit and load_in_8bit both given: choose one")
	case o.LoadIn8Bit != nil:
		s, err := openLoadIn8Bit(dir, cfg, o.LoadIn8Bit)
		if err != nil {
			return nil, o, err
		}
		set, q, how = s, o.LoadIn8Bit, "quantized at load (load_in_8bit), "
	case o.LoadIn4Bit != nil:
		b, err := openLoadIn4Bit(dir, cfg, o.LoadIn4Bit)
		if err != nil {
			return nil, o, err
		}
		set, q, how = b, o.LoadIn4Bit, "quantized at load (load_in_4bit), "
	default:
		s, err := OpenTensors(dir, cfg)
		if err != nil {
			return nil, o, err
		}
		set = s
	}
	o = fit4Bit(set, o)
	logQuantized(backend, set, cfg, q, how, o)
	return set, o, nil
}

// fit4Bit is o with Dequantize4Bit set where Dequantize4BitFits allows
// set's 4-bit weights dequantized (their bytes counted only then).
func fit4Bit(set Tensors, o LoadOptions) LoadOptions {
	if o.Dequantize4Bit || o.Dequantize4BitFits <= 0 {
		return o
	}
	n := dequantized4BitBytes(set, o)
	if n == 0 || n > o.Dequantize4BitFits {
		return o
	}
	o.Dequantize4Bit = true
	logf(o.Logf, "4-bit weights dequantized at load: their %.2f GB fit the %.2f GB allowed (faster than dequantizing them in every graph)",
		float64(n)/1e9, float64(o.Dequantize4BitFits)/1e9)
	return o
}

// dequantized4BitBytes is the bytes set's 4-bit weights take dequantized
// into the dtype o holds weights in (0: no 4-bit weights).
func dequantized4BitBytes(set Tensors, o LoadOptions) int64 {
	qs, ok := set.(interface{ Quantized() []string })
	if _, is4 := set.(q4Source); !ok || !is4 {
		return 0
	}
	var n int64
	for _, name := range qs.Quantized() {
		if info, ok := set.Info(name); ok {
			n += info.NumElements()
		}
	}
	return n * int64(o.weightDTypes().held.Size())
}

// logQuantized logs what becomes of set's quantized weights (q, how they
// were opened) on backend.
func logQuantized(backend backends.Backend, set Tensors, cfg *Config, q *Quantization, how string, o LoadOptions) {
	qs, ok := set.(interface{ Quantized() []string })
	if !ok || o.Logf == nil {
		return
	}
	how += "dequantized at load to " + o.weightDTypes().held.String()
	mode, _ := ParseAdapterMode(o.AdapterMode)
	merged := len(o.Adapters) > 0 && mode == AdapterMerged
	_, packs := backend.(q4Backend)
	if (packs || q4InGraph(backend)) && o.weightDTypes().packQ4 && !merged {
		if src, is4 := set.(q4Source); is4 && src.q4Where() != "" {
			kept := "kept packed (4-bit) "
			if !packs {
				kept = "kept packed (4-bit, dequantized in the graph) "
			}
			how = strings.Replace(how, "dequantized at load", kept+src.q4Where()+", dequantized at load", 1) + " otherwise"
		}
	}
	if c := Int8Compute(cfg, o); c != "" && c != "dequantized" {
		how = strings.Replace(how, "dequantized at load to", "kept as int8 codes and multiplied as "+c+", in", 1)
	}
	o.Logf("%s: %d weights %s", q, len(qs.Quantized()), how)
}

// weightDTypes is how o's weights are stored (LoadOptions.WeightDType).
func (o LoadOptions) weightDTypes() weightDTypes {
	w := weightDTypes{compute: o.DType, held: o.WeightDType, matrix: o.DType, packQ4: !o.Dequantize4Bit}
	if w.held == dtypes.InvalidDType {
		w.held = w.compute
	}
	if w.held == dtypes.BFloat16 && w.compute == dtypes.Float32 {
		w.matrix = dtypes.BFloat16
	}
	return w
}

// loadAdapters reads and validates o.Adapters against the base checkpoint.
func loadAdapters(set Tensors, o LoadOptions, mode string) ([]*Adapter, error) {
	var list []*Adapter
	for _, dir := range o.Adapters {
		a, err := LoadAdapter(dir, set)
		if err != nil {
			return nil, err
		}
		if o.Logf != nil {
			o.Logf("adapter %d: %s (%s mode)", len(list), a, mode)
		}
		list = append(list, a)
	}
	return list, nil
}

// String names the loaded architecture for logs.
func (l *Loaded) String() string {
	return fmt.Sprintf("%s (%d parameters)", l.Config.Describe(), NumParameters(l.Context))
}

// logf calls f when it is not nil.
func logf(f func(string, ...any), format string, args ...any) {
	if f != nil {
		f(format, args...)
	}
}
