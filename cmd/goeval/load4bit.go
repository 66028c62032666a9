package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/report"
)

// load4Help is --load-in-4bit's help, shared by the commands that open a
// model.
const load4Help = "quantize a float checkpoint's Linear weights to 4 bits at load, as transformers' load_in_4bit=True with bitsandbytes does " +
	"(lm-eval's --model_args load_in_4bit=True,bnb_4bit_quant_type=…,bnb_4bit_use_double_quant=…,bnb_4bit_compute_dtype=…); " +
	"alone transformers' defaults (fp4, no double quantization), or =nf4|fp4[,double-quant][,compute=float32|bfloat16|float16]"

// dequant4Help is --dequantize-4bit's help (engine.Options.Dequantize4Bit
// and Keep4BitPacked).
const dequant4Help = "dequantize a 4-bit checkpoint's weights (bitsandbytes nf4/fp4, GPTQ, AWQ) at load to the compute dtype; =false keeps them packed on every device. " +
	"By default --device cpu multiplies by the packed codes, cuda dequantizes them inside each graph (an eighth of float32's device memory, the same values), " +
	"and xla-cpu dequantizes them at load where the dense weights fit half the memory available (kept packed, every decode step dequantizes the whole model: about 5× slower)"

// boolSpec is the part --load-in-4bit and --load-in-8bit share: a boolean
// flag that also takes a comma-separated spec.
type boolSpec struct {
	on    bool
	given bool // set by a flag or model argument (for the results file)
}

func (f *boolSpec) IsBoolFlag() bool { return true }

func (f *boolSpec) String() string {
	if f == nil || !f.on {
		return ""
	}
	return "true"
}

// set parses true/false, or a spec (which turns the flag on), handing
// each comma-separated part to part as key and value.
func (f *boolSpec) set(v string, part func(p, k, val string) error) error {
	f.given = true
	if b, err := strconv.ParseBool(v); err == nil {
		f.on = b
		return nil
	}
	f.on = true
	for _, p := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
		if err := part(p, k, val); err != nil {
			return err
		}
	}
	return nil
}

// load4Flag is --load-in-4bit: a boolean flag that also takes a spec.
type load4Flag struct {
	boolSpec
	quantType   string // "" is transformers' fp4
	doubleQuant bool
	compute     string
}

// Set parses true/false or nf4|fp4[,double-quant][,compute=DTYPE].
func (f *load4Flag) Set(v string) error {
	return f.set(v, func(part, k, val string) error {
		switch {
		case k == "nf4" || k == "fp4":
			f.quantType = k
		case k == "double-quant" || k == "double_quant":
			f.doubleQuant = true
		case k == "compute":
			f.compute = val
		default:
			return fmt.Errorf("%q: want true, false or nf4|fp4[,double-quant][,compute=float32|bfloat16|float16]", part)
		}
		return nil
	})
}

// config is the load-time quantization (nil when off).
func (f *load4Flag) config() (*models.Quantization, error) {
	if !f.on {
		if f.quantType != "" || f.doubleQuant || f.compute != "" {
			return nil, errs.BadInputf("bnb_4bit_* model arguments without load_in_4bit=True: add load_in_4bit=True (or --load-in-4bit)")
		}
		return nil, nil
	}
	return models.LoadIn4Bit(f.quantType, f.doubleQuant, f.compute)
}

// modelArg applies one of lm-eval's bitsandbytes model arguments; ok is
// false for another key.
func (f *load4Flag) modelArg(k string, v any) (ok bool, err error) {
	s := fmt.Sprint(v)
	switch k {
	case "load_in_4bit", "bnb_4bit_use_double_quant":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return true, errs.BadInputf("--model_args %s=%v: want True or False", k, v)
		}
		switch k {
		case "load_in_4bit":
			f.on, f.given = b, true
		case "bnb_4bit_use_double_quant":
			f.doubleQuant = b
		}
	case "bnb_4bit_quant_type":
		f.quantType = s
	case "bnb_4bit_compute_dtype":
		f.compute = s
	default:
		return false, nil
	}
	return true, nil
}

// runArgs is the results file's record of a load-time quantization given
// by --load-in-4bit (nil when off or given through --model_args, which
// are recorded as given).
func (f *load4Flag) runArgs(q *models.Quantization) *report.LoadIn4BitArgs {
	if q == nil {
		return nil
	}
	return &report.LoadIn4BitArgs{QuantType: q.QuantType, DoubleQuant: q.DoubleQuant, ComputeDType: q.ComputeDType}
}

// validateLoad4 resolves --load-in-4bit, --load-in-8bit and lm-eval's
// load_in_4bit and load_in_8bit model arguments (load8bit.go); they need
// a checkpoint evaluated in-process.
func (f *runFlags) validateLoad4() error {
	what := ""
	if f.model == "fake" || f.api.on() {
		what = map[bool]string{true: "a model behind an API", false: "the fake model"}[f.api.on()]
	}
	q, q8, err := resolveLoadIn(&f.load4, &f.load8, what)
	if err != nil {
		return err
	}
	if q != nil && what != "" {
		return errs.BadInputf("load_in_4bit quantizes a checkpoint's weights at load: it needs a checkpoint --model, not %s", what)
	}
	f.load4q, f.load8q = q, q8
	return nil
}
