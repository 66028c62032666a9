package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goeval/goeval/apimodel"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmenc"
	"github.com/goeval/goeval/lm/lmtok"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/report"
)

// API models: `goeval run --model-type openai-completions|openai-chat
// --base-url URL --model NAME` (or lm-eval's --model local-completions
// --model_args model=NAME,base_url=URL,tokenizer=DIR) evaluates a model
// behind an OpenAI-compatible server (apimodel).

// apiState is the API model of a run; kind "" means a local checkpoint.
type apiState struct {
	kind                 string // "completions" or "chat"
	modelType, baseURL   string
	tokenizer            string
	concurrency, retries int
	timeout              time.Duration
	tokenized            bool // lm-eval tokenized_requests
}

func (a *apiState) on() bool { return a.kind != "" }

// apiModelTypes maps --model-type (and lm-eval's --model) to the API kind.
var apiModelTypes = map[string]string{
	"openai-completions": "completions", "local-completions": "completions",
	"openai-chat": "chat", "openai-chat-completions": "chat", "local-chat-completions": "chat",
}

func defineAPIFlags(fs *flag.FlagSet, a *apiState) {
	fs.StringVar(&a.modelType, "model-type", "", "evaluate a model behind an OpenAI-compatible API instead of a checkpoint: openai-completions (log-likelihoods through echo + logprobs, generation through completions; lm-eval's local-completions) or openai-chat (generation only, through chat completions; lm-eval's local-chat-completions). --model is then the served model's name and --base-url the server; the API key comes from $OPENAI_API_KEY")
	fs.StringVar(&a.baseURL, "base-url", "", "with --model-type: the server's API root (http://127.0.0.1:8000/v1) or its endpoint")
	fs.StringVar(&a.tokenizer, "tokenizer", "", "with --model-type: the model's tokenizer (a folder with tokenizer.json, or the file), used to send token ids as lm-eval does; default: --model when it is such a folder. Needed for log-likelihood tasks")
	fs.IntVar(&a.concurrency, "api-concurrency", 4, "with --model-type: HTTP requests in flight (lm-eval's num_concurrent)")
	fs.IntVar(&a.retries, "api-retries", 3, "with --model-type: retries of a request after 429, 5xx or a network error, with exponential backoff (lm-eval's max_retries)")
	fs.DurationVar(&a.timeout, "api-timeout", 10*time.Minute, "with --model-type: per HTTP request")
	fs.BoolVar(&a.tokenized, "api-tokenized", true, "with --model-type openai-completions: send prompts as token ids (lm-eval's tokenized_requests); false sends text, for servers that take only strings (generation tasks only)")
}

// applyAPI settles --model-type (or lm-eval's model type in --model) and
// its model_args, before validate.
func (f *runFlags) applyAPI() error {
	a := &f.api
	if a.modelType == "" {
		if _, ok := apiModelTypes[f.model]; ok { // lm-eval's --model local-completions
			a.modelType, f.model = f.model, ""
		}
	}
	if a.modelType == "" {
		return nil
	}
	kind, ok := apiModelTypes[a.modelType]
	if !ok {
		return errs.BadInputf("--model-type %q: use openai-completions or openai-chat", a.modelType)
	}
	a.kind = kind
	if f.lmeval.modelArgs != "" {
		args, err := report.ParseArgString("model_args", f.lmeval.modelArgs)
		if err != nil {
			return err
		}
		f.lmeval.args = args
		for _, k := range args.Keys() {
			if err := f.apiModelArg(k, fmt.Sprint(args.Value(k))); err != nil {
				return err
			}
		}
		f.lmeval.modelArgs = "" // consumed here, not as HF arguments
	}
	switch {
	case f.model == "":
		return errs.BadInputf("--model-type %s needs --model NAME (the served model; lm-eval: --model_args model=NAME)", a.modelType)
	case a.baseURL == "":
		return errs.BadInputf("--model-type %s needs --base-url URL (lm-eval: --model_args base_url=URL)", a.modelType)
	case !strings.HasPrefix(a.baseURL, "http://") && !strings.HasPrefix(a.baseURL, "https://"):
		return errs.BadInputf("--base-url %q must start with http:// or https://", a.baseURL)
	case len(f.adapters) > 0:
		return errs.BadInputf("--adapter needs a checkpoint; an API model is served as it is")
	case a.concurrency < 1 || a.retries < 0 || a.timeout <= 0:
		return errs.BadInputf("--api-concurrency must be ≥ 1, --api-retries ≥ 0 and --api-timeout > 0")
	}
	if a.tokenizer == "" {
		if _, err := os.Stat(filepath.Join(f.model, "tokenizer.json")); err == nil {
			a.tokenizer = f.model
		}
	}
	if a.tokenizer != "" {
		if err := checkTokenizerPath(a.tokenizer); err != nil {
			return err
		}
	}
	if a.kind == "completions" && a.tokenized && a.tokenizer == "" {
		return errs.BadInputf("--model-type %s sends token ids, as lm-eval does: give --tokenizer (the model's tokenizer folder; lm-eval: tokenizer=DIR), or --api-tokenized=false to send text (generation tasks only)", a.modelType)
	}
	return nil
}

// apiModelArg applies one of lm-eval's API model arguments.
func (f *runFlags) apiModelArg(k, v string) error {
	a := &f.api
	num := func(dst *int) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errs.BadInputf("--model_args %s=%s: want a positive integer", k, v)
		}
		*dst = n
		return nil
	}
	switch k {
	case "model":
		f.model = v
	case "base_url":
		a.baseURL = v
	case "tokenizer":
		a.tokenizer = v
	case "num_concurrent":
		return num(&a.concurrency)
	case "max_retries":
		return num(&a.retries)
	case "max_length":
		return num(&f.lmeval.maxLength)
	case "timeout":
		n := 0
		if err := num(&n); err != nil {
			return err
		}
		a.timeout = time.Duration(n) * time.Second
	case "tokenized_requests":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errs.BadInputf("--model_args tokenized_requests=%s: want true or false", v)
		}
		a.tokenized = b
	case "tokenizer_backend":
		if v != "huggingface" {
			return errs.BadInputf("--model_args tokenizer_backend=%s: goeval reads Hugging Face tokenizer.json files only", v)
		}
	default:
		if ok, err := f.think.thinkModelArg(k, v); ok {
			return err
		}
		return errs.BadInputf("--model_args key %q is not supported for an API model (goeval honours model, base_url, tokenizer, num_concurrent, max_retries, max_length, timeout, tokenized_requests, tokenizer_backend, think_end_token, enable_thinking)", k)
	}
	return nil
}

// apiPlan is a run's model behind an API: the client's options (with the
// tokenizer loaded), its cache identity and what its results files record
// of the tokenizer.
type apiPlan struct {
	opts apimodel.Options
	key  string   // the cache identity: kind, URL, model name
	info *lm.Info // the tokenizer's tokens and max_length (nil without a tokenizer)
}

// planAPI settles the API model of f (loading its tokenizer); with
// --apply-chat-template a completions model needs the tokenizer's template.
func planAPI(f *runFlags) (*apiPlan, error) {
	a := f.api
	o := apimodel.Options{BaseURL: a.baseURL, Model: f.model, Chat: a.kind == "chat", APIKey: env.OpenAIAPIKey.Get(),
		MaxLength: f.lmeval.maxLength, Concurrency: a.concurrency, Retries: a.retries, Timeout: a.timeout}
	if a.retries == 0 {
		o.Retries = -1
	}
	if n, err := strconv.Atoi(f.batch); err == nil {
		o.BatchSize = n
	}
	p := &apiPlan{key: "api " + a.kind + " " + strings.TrimRight(a.baseURL, "/") + " " + f.model}
	if a.tokenizer != "" && a.tokenized {
		t, err := tokenizer.Load(a.tokenizer)
		if err != nil {
			return nil, err
		}
		no := false
		prefix, _ := t.EOS() // lm-eval's API models: prefix_token_id = eot_token_id, no BOS added
		o.Tokenizer, o.Specials, o.Template = t, lmenc.Specials{Prefix: prefix, AddBOS: &no}, lmtok.Chat{Tok: t, Args: f.think.chatArgs()}
		if f.lmeval.addBOS != nil {
			o.Specials.AddBOS = f.lmeval.addBOS
		}
		info := apiInfo(t, o.MaxLength)
		p.info = &info
	}
	p.opts = o
	if f.chat && p.template() == "" {
		return nil, errs.BadInputf("--apply-chat-template with openai-completions needs --tokenizer with a chat template (or use --model-type openai-chat)")
	}
	return p, nil
}

// template is the API model's chat template: the server's for a chat
// model, the tokenizer's for a completions model ("" without one).
func (p *apiPlan) template() string {
	switch {
	case p.opts.Chat:
		return apimodel.ServerTemplate
	case p.opts.Template != nil:
		return p.opts.Template.ChatTemplate()
	}
	return ""
}

// open is the API model's client.
func (p *apiPlan) open() (openedModel, error) {
	m, err := apimodel.New(p.opts)
	if err != nil {
		return openedModel{}, errs.BadInputf("%v", err)
	}
	return openedModel{lm: m, apiKey: p.key, info: p.info}, nil
}

// apiInfo is what lm-eval's API models record of their tokenizer, and their
// max_length: the one given minus the token left for generation.
func apiInfo(tok *tokenizer.Tokenizer, maxLength int) lm.Info {
	if maxLength <= 0 {
		maxLength = 2048
	}
	info := lm.Info{BOS: lmtok.Token(tok, tok.BOS), EOS: lmtok.Token(tok, tok.EOS), Pad: lmtok.Token(tok, tok.Pad), MaxLength: maxLength - 1}
	info.EOT = info.EOS
	return info
}

// apiDevice is what an API run records as its device.
var apiDevice = engine.DeviceChoice{Device: "api"}

// apiModelArgs is the results file's model_args: lm-eval's as given, or for
// an API model given by goeval's flags the equivalent local-completions
// arguments.
func (f *runFlags) apiModelArgs() report.ArgMap {
	if f.lmeval.args != nil || !f.api.on() {
		return f.lmeval.args
	}
	args, _ := report.ParseArgString("model_args", "") // an empty ordered map
	args.Set("model", f.model)
	args.Set("base_url", f.api.baseURL)
	if f.api.tokenizer != "" {
		args.Set("tokenizer", f.api.tokenizer)
	}
	return args
}
