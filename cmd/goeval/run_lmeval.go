package main

import (
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// lm-eval's spellings of goeval run's flags (lm_eval/_cli/run.py). Before
// parsing, lmevalArgs rewrites them into goeval's: underscores become
// dashes, short flags their long names, a space-separated value of an
// optional-value flag (--fewshot_as_multiturn false) is attached, and
// nargs="+" values (--tasks a b, --gen_kwargs k=v k2=v2) are joined with
// commas. Flags of lm-eval that mean nothing for goeval are refused with a
// line saying why.

// lmevalShort are lm-eval's one-letter flags.
var lmevalShort = map[string]string{"t": "tasks", "M": "model", "a": "model-args", "f": "num-fewshot",
	"b": "batch-size", "L": "limit", "o": "output-path", "s": "log-samples", "c": "use-cache",
	"w": "write-out", "C": "config", "E": "samples", "x": "predict-only"}

// lmevalRefused are lm-eval flags goeval does not support, with the reason.
var lmevalRefused = map[string]string{
	"predict-only":      "goeval always computes the metrics; use --log-samples to keep the model outputs",
	"check-integrity":   "goeval's tasks are built in and checked by goeval's own tests; there is no task test suite to run",
	"cache-requests":    "goeval rebuilds prompts in milliseconds and caches nothing but model responses (--use-cache)",
	"wandb-args":        "goeval does not log to Weights & Biases",
	"wandb-config-args": "goeval does not log to Weights & Biases",
	"trackio-args":      "goeval does not log to Trackio",
	"hf-hub-log-args":   "goeval does not upload results to the Hugging Face Hub",
	"verbosity":         "goeval has no log levels; progress goes to stderr",
}

// lmevalOptionalValue are flags whose value lm-eval makes optional; a
// following true/false (or, for --apply_chat_template, a template name) is
// their value.
var lmevalOptionalValue = map[string]bool{"fewshot-as-multiturn": true, "apply-chat-template": true,
	"trust-remote-code": true}

// lmevalMulti are lm-eval's nargs="+" flags: following words are more values.
var lmevalMulti = map[string]bool{"tasks": true, "model-args": true, "gen-kwargs": true}

// lmevalArgs rewrites args (goeval run's arguments) from lm-eval's
// spellings into goeval's; fs has goeval's flags.
func lmevalArgs(args []string, fs *flag.FlagSet) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		name, value, hasValue := splitFlagArg(a)
		if name == "" {
			out = append(out, a)
			continue
		}
		name = lmevalName(name, fs)
		if why, ok := lmevalRefused[name]; ok {
			return nil, errs.BadInputf("--%s (lm-eval) is not supported: %s", strings.ReplaceAll(name, "-", "_"), why)
		}
		if fs.Lookup(name) == nil {
			out = append(out, a) // the flag package names the unknown flag
			continue
		}
		if !hasValue && i+1 < len(args) && !isFlagArg(args[i+1]) {
			if lmevalOptionalValue[name] {
				value, hasValue, i = args[i+1], true, i+1
			} else if !isBoolFlag(fs, name) {
				value, hasValue, i = args[i+1], true, i+1
				for lmevalMulti[name] && i+1 < len(args) && !isFlagArg(args[i+1]) {
					value, i = value+","+args[i+1], i+1
				}
			}
		}
		if name == "fewshot-as-multiturn" && (strings.EqualFold(value, "yes") || strings.EqualFold(value, "no")) {
			value = strconv.FormatBool(strings.EqualFold(value, "yes")) // lm-eval's spellings
		}
		if _, err := strconv.ParseBool(value); hasValue && name == "apply-chat-template" && err != nil {
			return nil, errs.BadInputf("--apply_chat_template %s: goeval applies the tokenizer's default chat template; named templates are not supported", value)
		}
		if hasValue {
			out = append(out, "--"+name+"="+value)
		} else {
			out = append(out, "--"+name)
		}
	}
	return out, nil
}

// splitFlagArg splits "--name=value" / "-n"; name is "" for a non-flag.
func splitFlagArg(a string) (name, value string, hasValue bool) {
	if !isFlagArg(a) {
		return "", "", false
	}
	s := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	name, value, hasValue = strings.Cut(s, "=")
	return name, value, hasValue
}

// isFlagArg reports whether a is a flag (not a value such as "-1").
func isFlagArg(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	c := strings.TrimLeft(a, "-")
	return c != "" && (c[0] < '0' || c[0] > '9') && c[0] != '.'
}

// lmevalName is goeval's name of an lm-eval flag name.
func lmevalName(name string, fs *flag.FlagSet) string {
	if long, ok := lmevalShort[name]; ok && fs.Lookup(name) == nil {
		return long
	}
	return strings.ReplaceAll(name, "_", "-")
}

func isBoolFlag(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// lmevalModelTypes are lm-eval --model values other than hf: goeval runs
// Hugging Face checkpoints in-process only.
var lmevalModelTypes = []string{"vllm", "vllm-vlm", "sglang", "hf-multimodal", "local-completions",
	"local-chat-completions", "openai-completions", "openai-chat-completions", "anthropic-completions",
	"anthropic-chat", "anthropic-chat-completions", "gguf", "ggml", "textsynth", "dummy", "mamba_ssm",
	"nemo_lm", "neuronx", "openvino", "ipex", "steered", "watsonx_llm", "hf-audiolm-qwen", "winml"}

// checkModelType handles --model when it is lm-eval's model type: "hf"
// (or "huggingface") with --model-args pretrained=DIR names the checkpoint
// there; another lm-eval type is refused.
func (f *runFlags) checkModelType() error {
	switch {
	case slices.Contains(lmevalModelTypes, f.model):
		return errs.BadInputf("--model %s is an lm-eval model type goeval does not have: goeval evaluates Hugging Face checkpoints in-process; use --model hf --model_args pretrained=DIR (or --model DIR)", f.model)
	case f.model == "hf" || f.model == "huggingface" || f.model == "hf-auto":
		if f.lmeval.modelArgs == "" {
			if _, err := os.Stat(f.model); err == nil {
				return nil // a folder named hf
			}
			return errs.BadInputf("--model %s needs --model_args pretrained=DIR (the checkpoint), or give the checkpoint as --model DIR", f.model)
		}
		f.model = ""
	}
	return nil
}

// defineLMEvalFlags adds the flags goeval run has for lm-eval's options.
func defineLMEvalFlags(fs *flag.FlagSet, f *runFlags) {
	s := &f.lmeval
	fs.StringVar(&s.modelArgs, "model-args", "", "lm-eval's model arguments, with --model hf: pretrained=DIR[,dtype=auto|float32|bfloat16|float16|half][,peft=ADAPTER][,max_length=N][,add_bos_token=BOOL][,prefix_token_id=ID][,revision=REV] (or a JSON object); recorded as given in the results file")
	fs.IntVar(&s.maxBatch, "max-batch-size", 0, "with --batch-size auto: at most this many rows per forward pass")
	fs.StringVar(&s.samples, "samples", "", "documents by index instead of --limit: a JSON object (or file) {\"task\": [0, 5, …]}; as in lm-eval they are taken in dataset order and keep their index as doc_id")
	fs.StringVar(&s.metadata, "metadata", "", "key=value pairs or a JSON object added to every task config's metadata in the results file and passed to task files' custom_dataset functions, e.g. RULER's {\"max_seq_lengths\":[8192]} (lm-eval's --metadata)")
	fs.StringVar(&s.configFile, "config", "", "a YAML file of lm-eval run options (model, model_args, tasks, num_fewshot, batch_size, …, as lm-eval's --config reads); flags on the command line win")
	fs.BoolVar(&s.writeOut, "write-out", false, "print each task's first prompt and target to stderr (lm-eval's --write_out)")
	fs.BoolVar(&s.showConfig, "show-config", false, "print the task configs (the results file's \"configs\") after the summary table")
	fs.BoolVar(&s.trustRemoteCode, "trust-remote-code", false, "accepted for lm-eval compatibility; goeval runs no model code from checkpoints")
}
