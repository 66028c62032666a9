package models

import (
	"runtime"
	"strings"
	"sync"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// LoadIn4Bit is the quantization_config transformers builds for
// from_pretrained(…, quantization_config=BitsAndBytesConfig(load_in_4bit=
// True, bnb_4bit_quant_type=quantType, bnb_4bit_use_double_quant=
// doubleQuant, bnb_4bit_compute_dtype=computeDType)) of a float
// checkpoint: quantType "nf4" or "fp4" ("" is transformers' default fp4),
// computeDType float32 (the default, ""), bfloat16 or float16 (torch.
// prefix and the float/half spellings accepted). Load quantizes such a
// checkpoint's Linear weights at load (LoadOptions.LoadIn4Bit).
func LoadIn4Bit(quantType string, doubleQuant bool, computeDType string) (*Quantization, error) {
	if quantType == "" {
		quantType = "fp4"
	}
	if quantType != "nf4" && quantType != "fp4" {
		return nil, errs.BadInputf("bnb_4bit_quant_type %q: want nf4 or fp4", quantType)
	}
	cd, ok := map[string]string{"": "float32", "float32": "float32", "float": "float32", "bfloat16": "bfloat16",
		"float16": "float16", "half": "float16"}[strings.TrimPrefix(computeDType, "torch.")]
	if !ok {
		return nil, errs.BadInputf("bnb_4bit_compute_dtype %q: want float32, bfloat16 or float16", computeDType)
	}
	return &Quantization{Method: "bitsandbytes", LoadIn4Bit: true, QuantType: quantType, DoubleQuant: doubleQuant,
		ComputeDType: cd, QuantStorage: "uint8"}, nil
}

// openLoadIn4Bit opens the float checkpoint in dir quantized at load as q
// (LoadIn4Bit) describes: each weight transformers would quantize
// (bnbLoadTargets) is quantized with bitsandbytes' quantize_4bit into the
// tensors bitsandbytes would save for it (bnbQuantizedTensors), held in
// memory, and read back through the same bnbSet a pre-quantized
// checkpoint is. A checkpoint that is already quantized is refused.
func openLoadIn4Bit(dir string, cfg *Config, q *Quantization) (*bnbSet, error) {
	if cfg.Quantization != nil {
		return nil, errs.BadInputf("%s: load_in_4bit quantizes a float checkpoint; this one is already quantized (%s)", configName(cfg), cfg.Quantization)
	}
	if cfg.TieWordEmbeddings && bnbHeadQuantized(q.SkipModules) {
		return nil, errs.BadInputf("%s: load_in_4bit with llm_int8_skip_modules %v quantizes the LM head too (unless the list names lm_head), and this checkpoint ties its head to the embedding: transformers 5.23 then makes the head a 4-bit layer over the float embedding, whose forward fails on CPU (an AssertionError, bitsandbytes 0.50), so there is no reference to match; add lm_head to llm_int8_skip_modules to keep the head float", configName(cfg), q.SkipModules)
	}
	set, err := openCheckpoint(dir, cfg)
	if err != nil {
		return nil, err
	}
	b, err := quantizeSet(set, q)
	if err != nil {
		set.Close()
		return nil, err
	}
	return b, nil
}

// quantizeSet is set with every load_in_4bit target quantized as q says,
// the weights quantized in parallel (one goroutine per CPU).
func quantizeSet(set *safetensors.Set, q *Quantization) (*bnbSet, error) {
	b := &bnbSet{Set: set, weights: map[string]*bnbWeight{}, hidden: map[string]bool{}, mem: memTensors{}}
	rank := func(n string) int { info, _ := set.Info(n); return len(info.Shape) }
	targets := bnbLoadTargets(set.Names(), rank, q.SkipModules)
	if len(targets) == 0 {
		return nil, errs.BadInputf("%s: load_in_4bit found no Linear weight under model.layers. to quantize", set.Source())
	}
	out := make([][]safetensors.Tensor, len(targets))
	errc := make([]error, len(targets))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(targets)) {
		wg.Go(func() {
			for i := range next {
				out[i], errc[i] = quantizeWeight(set, targets[i], q)
			}
		})
	}
	for i := range targets {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, name := range targets {
		if errc[i] != nil {
			return nil, errc[i]
		}
		for _, t := range out[i] {
			b.mem[t.Name] = t
		}
		w, err := b.readWeight(name, name+bnbStatePrefix+q.QuantType, q)
		if err != nil {
			return nil, err
		}
		b.weights[name] = w
	}
	return b, nil
}

// quantizeWeight is bnbQuantizedTensors of weight name of set.
func quantizeWeight(set *safetensors.Set, name string, q *Quantization) ([]safetensors.Tensor, error) {
	info, _ := set.Info(name)
	x, err := set.Float32(name)
	if err != nil {
		return nil, err
	}
	return bnbQuantizedTensors(name, x, info.Shape, info.DType, q)
}
