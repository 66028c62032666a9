package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models/tokenizer"
)

func init() {
	register("score", "log-likelihoods of JSON-lines requests (context/continuation ids or strings, or rolling text)", runScore)
}

// scoreIn is one request line of goeval score.
type scoreIn struct {
	Context         *string `json:"context"`
	Continuation    *string `json:"continuation"`
	ContextIDs      []int32 `json:"context_ids"`
	ContinuationIDs []int32 `json:"continuation_ids"`
	Text            *string `json:"text"`
	line            int     // stdin line number, for messages
}

// scoreOut is one result line. Rolling requests report is_greedy false.
type scoreOut struct {
	LogProb       float64   `json:"logprob"`
	IsGreedy      bool      `json:"is_greedy"`
	NTokens       int       `json:"n_tokens"`
	TokenLogProbs []float64 `json:"token_logprobs,omitempty"`
}

// scoreFlags are the engine flags shared by score and bench score.
type scoreFlags struct {
	model, device, dtype, tokenizer string
	adapter, adapterMode            string
	batch, maxLen                   int
	prefixCacheMB, compileCache     string
	softmax                         string
	verbose                         bool
	dequant4                        optBool   // given true or false, or left to the device
	load4                           load4Flag // --load-in-4bit
	load8                           load8Flag // --load-in-8bit
}

func (f *scoreFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "Hugging Face model directory (config.json + *.safetensors) (required)")
	fs.StringVar(&f.device, "device", engine.DefaultDevice(), deviceHelp)
	fs.StringVar(&f.dtype, "dtype", engine.DTypeAuto, dtypeHelp)
	fs.Var(&f.load4, "load-in-4bit", load4Help)
	fs.Var(&f.load8, "load-in-8bit", load8Help)
	fs.Var(&f.dequant4, "dequantize-4bit", dequant4Help)
	fs.IntVar(&f.batch, "batch-size", 8, "rows per forward pass")
	fs.StringVar(&f.prefixCacheMB, "prefix-cache-mb", "auto", prefixCacheHelp)
	fs.StringVar(&f.compileCache, "compile-cache", "", compileCacheHelp)
	fs.StringVar(&f.softmax, "softmax-dtype", "auto", softmaxHelp)
	fs.IntVar(&f.maxLen, "max-length", 0, "lm-eval max_length (left truncation, rolling window); 0 = config max_position_embeddings")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "tokenizer directory or tokenizer.json for string requests (default: the model directory's, when present)")
	fs.BoolVar(&f.verbose, "v", false, "log loading and graph compilation to stderr")
}

// registerAdapter adds score's --adapter and --adapter-mode.
func (f *scoreFlags) registerAdapter(fs *flag.FlagSet) {
	fs.StringVar(&f.adapter, "adapter", "", "PEFT LoRA adapter directory (adapter_config.json + adapter_model.safetensors) applied to --model")
	fs.StringVar(&f.adapterMode, "adapter-mode", engine.AdapterMerged, "merged (add scale·B·A into the weights at load) or separate (apply x·Aᵀ·Bᵀ·scale in the graph)")
}

// open loads the engine with score's --adapter and --adapter-mode.
func (f *scoreFlags) open() (*engine.Engine, error) {
	var adapters []string
	if f.adapter != "" {
		adapters = []string{f.adapter}
	}
	return f.openWith(adapters, f.adapterMode)
}

// openWith loads --model with the given PEFT adapters in adapter mode mode
// ("" = merged), and the tokenizer when there is one.
func (f *scoreFlags) openWith(adapters []string, mode string) (*engine.Engine, error) {
	if f.model == "" {
		return nil, errs.BadInputf("--model is required")
	}
	if f.batch < 1 {
		return nil, errs.BadInputf("--batch-size %d must be ≥ 1", f.batch)
	}
	if _, err := engine.ParseDType(f.dtype); err != nil {
		return nil, err
	}
	prefixMB, err := prefixCacheOption(f.prefixCacheMB)
	if err != nil {
		return nil, err
	}
	load4, load8, err := resolveLoadIn(&f.load4, &f.load8, "")
	if err != nil {
		return nil, err
	}
	if err := checkModelDir(f.model); err != nil {
		return nil, err
	}
	if err := checkDevice(f.device); err != nil {
		return nil, err
	}
	if err := checkCompileCache(f.compileCache); err != nil {
		return nil, err
	}
	if err := checkSoftmax(f.softmax); err != nil {
		return nil, err
	}
	choice, err := resolveDevice(f.device)
	if err != nil {
		return nil, err
	}
	o := engine.Options{Device: choice.Device, Backend: choice.Spec, DType: f.dtype, BatchSize: f.batch, MaxLength: f.maxLen,
		Adapters: adapters, AdapterMode: mode, PrefixCacheMB: prefixMB, LoadIn4Bit: load4, LoadIn8Bit: load8, Dequantize4Bit: f.dequant4.or(false), Keep4BitPacked: !f.dequant4.or(true),
		CompileCache: f.compileCache, Warnf: warnf, SoftmaxDType: f.softmax}
	if f.verbose {
		o.Logf = log.New(os.Stderr, "goeval: ", log.Ltime).Printf
	}
	tokPath := f.tokenizer
	if tokPath == "" {
		if _, err := os.Stat(filepath.Join(f.model, "tokenizer.json")); err == nil {
			tokPath = f.model
		}
	}
	if tokPath != "" {
		tok, err := tokenizer.Load(tokPath)
		if err != nil {
			return nil, err
		}
		o.Tokenizer = tok
	}
	return engine.Open(f.model, o)
}

func runScore(args []string) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	var f scoreFlags
	f.register(fs)
	f.registerAdapter(fs)
	tokens := fs.Bool("token-logprobs", false, "also print per-token log-probs (token-id requests only; for debugging)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval score --model DIR [flags] < requests.jsonl")
		fmt.Fprintln(fs.Output(), "Reads one request per line: {\"context_ids\": [int], \"continuation_ids\": [int]}, {\"context\": str, \"continuation\": str} or {\"text\": str} (rolling log-likelihood).")
		fmt.Fprintln(fs.Output(), "Writes one line per request: {\"logprob\": float, \"is_greedy\": bool, \"n_tokens\": int}.")
		fmt.Fprintln(fs.Output(), "A model with broken weights or activations gives NaN or ±Inf log-probs: they are written as NaN, Infinity and -Infinity, as Python's json.dumps writes them (json.loads reads them back; strict JSON parsers may reject them).")
		fs.PrintDefaults()
	}
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	reqs, err := readScoreRequests(os.Stdin)
	if err != nil {
		return err
	}
	e, err := f.open()
	if err != nil {
		return err
	}
	defer e.Close()
	out, err := scoreAll(e, reqs, *tokens)
	if err != nil {
		return err
	}
	return writeScoreLines(os.Stdout, out)
}

// readScoreRequests parses and validates every line; errors name the line.
func readScoreRequests(r io.Reader) ([]scoreIn, error) {
	var reqs []scoreIn
	err := readJSONLines(r, func(line int, in scoreIn) error {
		ids := in.ContextIDs != nil || in.ContinuationIDs != nil
		strs := in.Context != nil || in.Continuation != nil
		switch {
		case in.Text != nil && !ids && !strs:
		case ids && !strs && in.Text == nil:
			if len(in.ContinuationIDs) == 0 {
				return errs.BadInputf("stdin line %d: \"continuation_ids\" must be a non-empty list of token ids", line)
			}
		case strs && !ids && in.Text == nil:
			if in.Context == nil || in.Continuation == nil {
				return errs.BadInputf("stdin line %d: give both \"context\" and \"continuation\"", line)
			}
			if *in.Continuation == "" {
				return errs.BadInputf("stdin line %d: \"continuation\" must be a non-empty string (an empty one has no tokens to score)", line)
			}
		default:
			return errs.BadInputf("stdin line %d: want exactly one of {context_ids, continuation_ids}, {context, continuation} or {text}", line)
		}
		in.line = line
		reqs = append(reqs, in)
		return nil
	})
	return reqs, err
}

// scoreAll runs the log-likelihood and rolling requests (each kind in one
// engine call, so the engine batches them) and returns results in order.
func scoreAll(e *engine.Engine, reqs []scoreIn, tokens bool) ([]scoreOut, error) {
	ctx := context.Background()
	var ll []lm.LoglikelihoodRequest
	var roll []lm.RollingRequest
	var llAt, rollAt []int
	for i, r := range reqs {
		if r.Text != nil {
			roll, rollAt = append(roll, lm.RollingRequest{Text: *r.Text}), append(rollAt, i)
			continue
		}
		q := lm.LoglikelihoodRequest{ContextIDs: r.ContextIDs, ContinuationIDs: r.ContinuationIDs}
		if r.Context != nil {
			q.Context, q.Continuation = *r.Context, *r.Continuation
		}
		ll, llAt = append(ll, q), append(llAt, i)
	}
	out := make([]scoreOut, len(reqs))
	if tokens {
		return out, scoreTokens(ctx, e, ll, reqs, llAt, out)
	}
	res, err := e.Loglikelihood(ctx, ll)
	if err != nil {
		return nil, requestLine(err, reqs, llAt)
	}
	for j, r := range res {
		out[llAt[j]] = scoreOut{LogProb: r.LogProb, IsGreedy: r.IsGreedy, NTokens: r.NumTokens}
	}
	rr, err := e.LoglikelihoodRolling(ctx, roll)
	if err != nil {
		return nil, requestLine(err, reqs, rollAt)
	}
	for j, r := range rr {
		out[rollAt[j]] = scoreOut{LogProb: r.LogProb, NTokens: r.NumTokens}
	}
	return out, nil
}

// scoreTokens serves --token-logprobs (token-id requests only).
func scoreTokens(ctx context.Context, e *engine.Engine, ll []lm.LoglikelihoodRequest, reqs []scoreIn, at []int, out []scoreOut) error {
	if len(ll) != len(out) {
		return errs.BadInputf("--token-logprobs works with context_ids/continuation_ids requests only")
	}
	c, k := make([][]int32, len(ll)), make([][]int32, len(ll))
	for i, r := range ll {
		if r.ContinuationIDs == nil {
			return errs.BadInputf("stdin line %d: --token-logprobs needs token-id requests", reqs[at[i]].line)
		}
		c[i], k[i] = r.ContextIDs, r.ContinuationIDs
	}
	res, err := e.ScoreIDs(ctx, c, k, true)
	if err != nil {
		return requestLine(err, reqs, at)
	}
	for i, r := range res {
		out[at[i]] = scoreOut{LogProb: r.LogProb, IsGreedy: r.IsGreedy, NTokens: r.NumTokens, TokenLogProbs: r.TokenLogProbs}
	}
	return nil
}

// requestLine rewrites an engine error about request k of a call (at maps
// call positions to requests) as an error naming the stdin line.
func requestLine(err error, reqs []scoreIn, at []int) error {
	return stdinLine(err, len(at), func(i int) int { return reqs[at[i]].line })
}

// prefixCacheHelp explains --prefix-cache-mb (run, score).
const prefixCacheHelp = "MiB for cached few-shot prefixes: a prefix shared by more requests than one packed row holds runs once and its keys and values stay resident (least recently used evicted; recomputing is always correct). auto: 256 on the pure-Go backend (--device cpu), none on XLA devices, where the cache's extra graph shapes each cost a compile; 0 turns the cache off"

// prefixCacheOption is engine.Options.PrefixCacheMB for --prefix-cache-mb:
// auto (or unset, for commands that open models without the flag, such as
// judge) → 0 (the engine's default), 0 → -1 (off), N > 0 → N.
func prefixCacheOption(v string) (int, error) {
	if v == "auto" || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errs.BadInputf("--prefix-cache-mb %q: use auto, a number of MiB, or 0 to turn the cache off", v)
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

// mustPrefixCache is prefixCacheOption for a value already validated.
func mustPrefixCache(v string) int {
	n, _ := prefixCacheOption(v)
	return n
}
