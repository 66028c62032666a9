package main

import (
	"fmt"
	"strconv"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/report"
)

// load8Help is --load-in-8bit's help, shared by the commands that open a
// model.
const load8Help = "quantize a float checkpoint's Linear weights to 8 bits at load, as transformers' load_in_8bit=True with bitsandbytes does, " +
	"and compute them as LLM.int8 (lm-eval's --model_args load_in_8bit=True,llm_int8_threshold=…,llm_int8_skip_modules=…); " +
	"alone the default threshold 6.0, or =threshold=T[,skip=MODULE]…"

// load8Flag is --load-in-8bit: a boolean flag that also takes a spec.
type load8Flag struct {
	boolSpec
	threshold *float64 // nil: 6.0
	skip      []string
}

// Set parses true/false or threshold=T[,skip=MODULE]….
func (f *load8Flag) Set(v string) error {
	return f.set(v, func(part, k, val string) error {
		switch k {
		case "threshold":
			t, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("threshold %q: want a number", val)
			}
			f.threshold = &t
		case "skip":
			f.skip = append(f.skip, val)
		default:
			return fmt.Errorf("%q: want true, false or threshold=T[,skip=MODULE]", part)
		}
		return nil
	})
}

// config is the load-time quantization (nil when off).
func (f *load8Flag) config() (*models.Quantization, error) {
	if !f.on {
		if f.threshold != nil {
			return nil, errs.BadInputf("llm_int8_threshold without load_in_8bit=True: add load_in_8bit=True (or --load-in-8bit)")
		}
		return nil, nil
	}
	t := -1.0
	if f.threshold != nil {
		t = *f.threshold
	}
	return models.LoadIn8Bit(t, f.skip)
}

// modelArg applies one of lm-eval's LLM.int8 model arguments; ok is false
// for another key. llm_int8_skip_modules takes one module (lm-eval splits
// model_args at commas); it applies to load_in_4bit too.
func (f *load8Flag) modelArg(k string, v any) (ok bool, err error) {
	s := fmt.Sprint(v)
	switch k {
	case "load_in_8bit":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return true, errs.BadInputf("--model_args %s=%v: want True or False", k, v)
		}
		f.on, f.given = b, true
	case "llm_int8_threshold":
		t, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return true, errs.BadInputf("--model_args %s=%v: want a number", k, v)
		}
		f.threshold = &t
	case "llm_int8_skip_modules":
		f.skip = append(f.skip, s)
	default:
		return false, nil
	}
	return true, nil
}

// runArgs is the results file's record of --load-in-8bit (nil when off).
func (f *load8Flag) runArgs(q *models.Quantization) *report.LoadIn8BitArgs {
	if q == nil {
		return nil
	}
	return &report.LoadIn8BitArgs{Threshold: q.Int8Threshold(), SkipModules: q.SkipModules}
}

// resolveLoadIn resolves --load-in-4bit and --load-in-8bit (and lm-eval's
// model arguments) into at most one load-time quantization; model says
// what the model is ("" for a checkpoint).
func resolveLoadIn(l4 *load4Flag, l8 *load8Flag, model string) (q4, q8 *models.Quantization, err error) {
	if l4.on && l8.on {
		return nil, nil, errs.BadInputf("load_in_8bit=True is not supported together with load_in_4bit=True (--load-in-8bit, --load-in-4bit): choose one")
	}
	if q4, err = l4.config(); err != nil {
		return nil, nil, err
	}
	if q8, err = l8.config(); err != nil {
		return nil, nil, err
	}
	if q4 != nil && len(l8.skip) > 0 {
		q4.SkipModules = l8.skip
	} else if q4 == nil && q8 == nil && len(l8.skip) > 0 {
		return nil, nil, errs.BadInputf("llm_int8_skip_modules without load_in_8bit=True or load_in_4bit=True")
	}
	if q8 != nil && model != "" {
		return nil, nil, errs.BadInputf("load_in_8bit quantizes a checkpoint's weights at load: it needs a checkpoint --model, not %s", model)
	}
	return q4, q8, nil
}
