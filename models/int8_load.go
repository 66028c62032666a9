package models

import (
	"math"
	"runtime"
	"sync"

	"github.com/x448/float16"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// LoadIn8Bit is the quantization_config transformers builds for
// from_pretrained(…, quantization_config=BitsAndBytesConfig(load_in_8bit=
// True, llm_int8_threshold=threshold, llm_int8_skip_modules=skip)) of a
// float checkpoint (threshold < 0: the default 6.0). Load quantizes such
// a checkpoint's Linear weights at load (LoadOptions.LoadIn8Bit).
func LoadIn8Bit(threshold float64, skip []string) (*Quantization, error) {
	if threshold < 0 {
		threshold = int8DefaultThreshold
	}
	if math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return nil, errs.BadInputf("llm_int8_threshold %g: want a finite number", threshold)
	}
	return &Quantization{Method: "bitsandbytes", LoadIn8Bit: true, LLMInt8Threshold: &threshold, SkipModules: skip}, nil
}

// openLoadIn8Bit opens the float checkpoint in dir quantized at load as q
// (LoadIn8Bit) describes: each weight transformers would quantize
// (bnbLoadTargets, as for load_in_4bit) becomes the int8 codes and row
// scales bitsandbytes' Int8Params computes (quantizeRowInt8), held in
// memory. A checkpoint that is already quantized is refused.
func openLoadIn8Bit(dir string, cfg *Config, q *Quantization) (*int8Set, error) {
	if cfg.Quantization != nil {
		return nil, errs.BadInputf("%s: load_in_8bit quantizes a float checkpoint; this one is already quantized (%s)", configName(cfg), cfg.Quantization)
	}
	if cfg.TieWordEmbeddings && bnbHeadQuantized(q.SkipModules) {
		return nil, errs.BadInputf("%s: load_in_8bit with llm_int8_skip_modules %v quantizes the LM head too (unless the list names lm_head), and this checkpoint ties its head to the embedding: transformers 5.23 then makes the head an 8-bit layer over the float embedding, whose forward fails on CPU (an AttributeError, bitsandbytes 0.50), so there is no reference to match; add lm_head to llm_int8_skip_modules to keep the head float", configName(cfg), q.SkipModules)
	}
	set, err := openCheckpoint(dir, cfg)
	if err != nil {
		return nil, err
	}
	rank := func(n string) int { info, _ := set.Info(n); return len(info.Shape) }
	targets := bnbLoadTargets(set.Names(), rank, q.SkipModules)
	if len(targets) == 0 {
		set.Close()
		return nil, errs.BadInputf("%s: load_in_8bit found no Linear weight under model.layers. to quantize", set.Source())
	}
	rows, err := quantizeInt8Targets(set, targets)
	if err != nil {
		set.Close()
		return nil, err
	}
	return &int8Set{Tensors: set, rows: rows, threshold: q.Int8Threshold(), codes: true}, nil
}

// quantizeInt8Targets quantizes the weights targets of set (one goroutine
// per CPU).
func quantizeInt8Targets(set *safetensors.Set, targets []string) (map[string]*RowInt8, error) {
	out := make([]*RowInt8, len(targets))
	errc := make([]error, len(targets))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(targets)) {
		wg.Go(func() {
			for i := range next {
				info, _ := set.Info(targets[i])
				var w []float32
				if w, errc[i] = set.Float32(targets[i]); errc[i] == nil {
					out[i] = quantizeRowInt8(w, info.Shape[0], info.Shape[1])
				}
			}
		})
	}
	for i := range targets {
		next <- i
	}
	close(next)
	wg.Wait()
	rows := map[string]*RowInt8{}
	for i, name := range targets {
		if errc[i] != nil {
			return nil, errc[i]
		}
		rows[name] = out[i]
	}
	return rows, nil
}

// quantizeRowInt8 is bitsandbytes' Int8Params quantization of a float
// weight w [out, in]: int8_vectorwise_quant of its float16 values (to
// nearest even), without a threshold. SCB[o] is row o's largest |w16|;
// code = round-to-even(w16·((1/SCB)·127)) in float32 (torch's
// 127.0/SCB is a reciprocal times 127). An all-zero row gets codes 0.
func quantizeRowInt8(w []float32, out, in int) *RowInt8 {
	r := &RowInt8{Out: out, In: in, Codes: make([]int8, out*in), SCB: make([]float32, out)}
	row := make([]float32, in)
	for o := range out {
		var absmax float32
		for i, v := range w[o*in : (o+1)*in] {
			row[i] = float16.Fromfloat32(v).Float32()
			absmax = max(absmax, float32(math.Abs(float64(row[i]))))
		}
		r.SCB[o] = absmax
		if absmax == 0 {
			continue
		}
		scale := float32(1/absmax) * 127
		for i, v := range row {
			r.Codes[o*in+i] = int8(math.RoundToEven(float64(v * scale)))
		}
	}
	return r
}
