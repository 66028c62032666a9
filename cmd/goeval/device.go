package main

import (
	"context"
	"fmt"
	"os"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
)

// deviceHelp is the --device help of every command that runs a model.
const deviceHelp = "auto (the fastest here: cuda with an NVIDIA GPU and a CUDA plugin; else, on an x86-64 CPU with AVX2 or AVX-512, the pure-Go backend; else XLA on the CPU — its plugin is installed on first use, see 'goeval setup' — else the pure-Go backend), cpu (pure-Go backend), xla-cpu or cuda. $GOEVAL_DEVICE sets the default; $GOMLX_BACKEND=go runs cpu on GoMLX's simplego instead of goeval's backend, and $GOMLX_BACKEND=gocpu:OPTIONS passes options to goeval's (threads=N; bf16=dot: products with bfloat16 and 4-bit weights under --dtype bfloat16 round the activations to bfloat16 and use AVX512_BF16's VDPBF16PS — faster, other numbers; screen=off: greedy decode reads the whole LM head instead of its int8 screening copy — the same tokens, slower, no extra V×H bytes of memory)"

// checkDevice rejects an unknown --device before any work.
func checkDevice(d string) error {
	switch d {
	case "auto", "cpu", "xla-cpu", "cuda":
		return nil
	}
	return errs.BadInputf("--device %q: use auto, cpu, xla-cpu or cuda", d)
}

// resolveDevice resolves --device (installing the CPU plugin with a
// progress bar when auto or xla-cpu needs it). score, generate and bench
// print the choice only when auto made it (a device the user named is not
// repeated on their stderr); goeval run always prints it (showDevice).
func resolveDevice(device string) (engine.DeviceChoice, error) {
	c, err := engine.ResolveDevice(context.Background(), device, engine.ResolveOptions{Progress: os.Stderr})
	if err == nil && device == "auto" {
		printDevice(c)
	}
	return c, err
}

// printDevice writes "device: xla-cpu (…)" on stderr, and a notice when
// auto settled for the pure-Go backend.
func printDevice(c engine.DeviceChoice) {
	fmt.Fprintf(os.Stderr, "device: %s\n", c)
	if c.Notice != "" {
		fmt.Fprintf(os.Stderr, "notice: %s\n", c.Notice)
	}
}

// dtypeHelp is the --dtype help of every command that runs a model.
// softmaxHelp explains --softmax-dtype (run and the scoreFlags commands).
const softmaxHelp = "lm-eval's softmax_dtype: auto (the model's dtype, as lm-eval's default: in bfloat16 or float16 each token's log-prob and each request's sum are rounded to it and is_greedy is decided on the rounded log-probs, so near-tied choices tie as in lm-eval), float32 (goeval's float32 log-softmax and float64 sums, as lm-eval's softmax_dtype=float32), bfloat16 or float16"

// checkSoftmax refuses a --softmax-dtype the engine does not take.
func checkSoftmax(v string) error {
	if err := engine.CheckSoftmaxDType(v); err != nil {
		return errs.BadInputf("--softmax-dtype %s: use auto, float32, bfloat16 or float16", v)
	}
	return nil
}

const dtypeHelp = "the model's dtype: auto (config.json's torch_dtype on cuda, as lm-eval's dtype=auto; float32 on a CPU device), float32, bfloat16 or float16 (also f32, bf16, f16, half). In bfloat16 and float16 the weights are rounded to it from any checkpoint dtype and the products run in it with float32 accumulation; norms, attention's softmax and the log-softmax stay float32, and each log-prob and request sum is then rounded to the dtype as lm-eval does (--softmax-dtype). On --device cpu the products run in float32: bfloat16 keeps the weight matrices bfloat16 in memory (half of float32's), float16 computes on weights rounded to float16"
