package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/report"
)

// lmevalState holds what lm-eval's flags set beyond goeval's own: the
// parsed --model_args (recorded as given), the engine settings they carry,
// --metadata, --samples, the device as given, --max-batch-size.
type lmevalState struct {
	modelArgs, metadata, samples, configFile string
	maxBatch                                 int
	writeOut, showConfig, trustRemoteCode    bool

	args        report.ArgMap // --model_args parsed, for the results file
	meta        report.ArgMap // --metadata parsed
	maxLength   int           // max_length
	addBOS      *bool         // add_bos_token
	prefixToken *int32        // prefix_token_id
	softmax     string        // softmax_dtype
	deviceGiven string        // --device as given (cuda:0), for the results file
	sampleIDs   map[string][]int
}

// modelArgKeys are the --model_args keys goeval honours.
var modelArgKeys = "pretrained, dtype, softmax_dtype, peft, max_length, add_bos_token, prefix_token_id, truncation, revision, trust_remote_code, think_end_token, enable_thinking, chat_template_args, load_in_4bit, bnb_4bit_quant_type, bnb_4bit_use_double_quant, bnb_4bit_compute_dtype"

// applyLMEval turns lm-eval's options into goeval's (after parsing, before
// validate).
func (f *runFlags) applyLMEval() error {
	if err := f.applyAPI(); err != nil {
		return err
	}
	if err := f.checkModelType(); err != nil {
		return err
	}
	if err := f.applyModelArgs(); err != nil {
		return err
	}
	if err := f.applyDevice(); err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(f.batch, "auto:"); ok {
		if n, err := strconv.Atoi(rest); err != nil || n < 1 {
			return errs.BadInputf("--batch-size %q: use a positive number, auto or auto:N", f.batch)
		}
	}
	if f.lmeval.maxBatch < 0 {
		return errs.BadInputf("--max-batch-size %d must be ≥ 1", f.lmeval.maxBatch)
	}
	if f.lmeval.metadata != "" {
		m, err := report.ParseArgString("metadata", f.lmeval.metadata)
		if err != nil {
			return err
		}
		f.lmeval.meta = m
	}
	return f.applySamples()
}

// applyModelArgs reads --model_args (lm-eval's HFLM arguments).
func (f *runFlags) applyModelArgs() error {
	s := &f.lmeval
	if s.modelArgs == "" {
		return nil
	}
	args, err := report.ParseArgString("model_args", s.modelArgs)
	if err != nil {
		return err
	}
	s.args = args
	for _, k := range args.Keys() {
		if err := f.modelArg(k, args.Value(k)); err != nil {
			return err
		}
	}
	if f.model == "" {
		return errs.BadInputf("--model_args %q names no checkpoint: add pretrained=DIR", s.modelArgs)
	}
	if rev, ok := args.Get("revision"); ok { // a Hub id: fetch that revision (a local folder has none)
		if _, err := os.Stat(f.model); err != nil && !strings.Contains(f.model, "@") {
			f.model += "@" + fmt.Sprint(rev)
		}
	}
	return nil
}

// modelArg applies one --model_args key.
func (f *runFlags) modelArg(k string, v any) error {
	s := &f.lmeval
	bad := func(want string) error {
		return errs.BadInputf("--model_args %s=%v: want %s", k, v, want)
	}
	switch k {
	case "pretrained":
		if f.model != "" && f.model != fmt.Sprint(v) {
			return errs.BadInputf("both --model %s and --model_args pretrained=%v name the checkpoint: give one (lm-eval's spelling: --model hf --model_args pretrained=DIR)", f.model, v)
		}
		f.model = fmt.Sprint(v)
	case "dtype": // lm-eval's get_dtype: auto or a torch attribute name
		switch d := fmt.Sprint(v); d {
		case "float32", "float", "bfloat16", "float16", "half", "auto":
			f.dtype = d
		default:
			return bad("float32, bfloat16, float16 (half) or auto")
		}
	case "softmax_dtype": // lm-eval's log_softmax dtype (engine/lpround.go)
		switch d := fmt.Sprint(v); d {
		case "float32", "float", "float64", "double", "bfloat16", "float16", "half":
			s.softmax = d
		default:
			return bad("float32, bfloat16 or float16 (half)")
		}
	case "peft":
		f.adapters, f.skipBase = stringList{fmt.Sprint(v)}, true // lm-eval evaluates the adapted model only
	case "max_length", "prefix_token_id":
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || n < 0 || (k == "max_length" && n == 0) {
			return bad("a positive integer")
		}
		if k == "max_length" {
			s.maxLength = n
		} else {
			id := int32(n)
			s.prefixToken = &id
		}
	case "add_bos_token", "trust_remote_code", "truncation":
		b, err := strconv.ParseBool(fmt.Sprint(v))
		if err != nil {
			return bad("true or false")
		}
		switch {
		case k == "add_bos_token":
			s.addBOS = &b
		case k == "truncation" && b:
			return errs.BadInputf("--model_args truncation=True is not supported: goeval left-truncates contexts to max_length as lm-eval does by default")
		}
	case "revision": // applied after pretrained (applyModelArgs)
	default:
		if ok, err := f.think.thinkModelArg(k, v); ok {
			return err
		}
		if ok, err := f.load4.modelArg(k, v); ok {
			return err
		}
		if ok, err := f.load8.modelArg(k, v); ok {
			return err
		}
		return errs.BadInputf("--model_args key %q is not supported by goeval (it honours %s)", k, modelArgKeys)
	}
	return nil
}

// applyDevice accepts lm-eval's cuda:0 for cuda; goeval runs on one GPU.
func (f *runFlags) applyDevice() error {
	s := &f.lmeval
	rest, ok := strings.CutPrefix(f.device, "cuda:")
	if !ok {
		if f.device == "mps" {
			return errs.BadInputf("--device mps: goeval has no Apple GPU backend; use cpu or xla-cpu")
		}
		return nil
	}
	if n, err := strconv.Atoi(rest); err != nil || n != 0 {
		return errs.BadInputf("--device %s: goeval uses one GPU; choose it with CUDA_VISIBLE_DEVICES=%s and --device cuda", f.device, rest)
	}
	s.deviceGiven, f.device = f.device, "cuda"
	return nil
}

// applySamples reads --samples: a JSON object {task: [indices]}.
func (f *runFlags) applySamples() error {
	s := &f.lmeval
	if s.samples == "" {
		return nil
	}
	if f.limit != 0 {
		return errs.BadInputf("--samples and --limit exclude each other (as in lm-eval): give one")
	}
	raw := []byte(s.samples)
	if !strings.HasPrefix(strings.TrimSpace(s.samples), "{") { // lm-eval also takes a JSON file
		b, err := os.ReadFile(s.samples)
		if err != nil {
			return errs.BadInputf("--samples %q: neither a JSON object nor a readable file: %v", s.samples, err)
		}
		raw = b
	}
	if err := json.Unmarshal(raw, &s.sampleIDs); err != nil {
		return errs.BadInputf("--samples: want a JSON object of task → document indices, e.g. {\"arc_easy\": [0, 5]}: %v", err)
	}
	return nil
}
