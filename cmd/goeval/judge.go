package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goeval/goeval/apimodel"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/judge"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/report"
)

func init() {
	register("judge", "compare models' answers to open-ended prompts with an LLM judge (pairwise with position swap, or 0–10 grades)", runJudge)
}

type judgeFlags struct {
	prompts, judgeURL, judgeModel, mode, template, out, device, dtype string
	models                                                            stringList
	n, maxTokens, judgeMaxTokens, concurrency                         int
	temp, topP, priceIn, priceOut                                     float64
	seed                                                              uint64
}

const judgeUsage = `Usage: goeval judge --prompts FILE --model BASELINE --model CANDIDATE [--model …] --judge-url URL --judge-model NAME --output DIR
Generates every model's answer to each prompt (a checkpoint folder, rendered with its chat template; or URL#NAME, a chat model behind an OpenAI-compatible API), then asks the judge (any OpenAI-compatible chat endpoint, goeval serve included; key from $OPENAI_API_KEY):
  --mode pairwise  each candidate against the first --model (the baseline), every pair judged twice with the answers' order swapped; a pair whose two verdicts disagree counts as a tie, so a judge's position bias cannot make a winner
  --mode single    each answer graded 0–10 alone; the mean grade and its difference from the baseline's
Prompts: JSON lines or parquet with "prompt", or UltraChat's "messages" (the first user turn). Writes DIR/answers.jsonl, DIR/judgements.jsonl (both answers, both verdicts, the judge's explanations) and DIR/summary.json; prints win/tie/loss, the win rate (ties count half) with its 95 % bootstrap interval over prompts, position consistency and the rate of judgements without a readable verdict.
`

func runJudge(args []string) error {
	fs := flag.NewFlagSet("judge", flag.ContinueOnError)
	var f judgeFlags
	fs.StringVar(&f.prompts, "prompts", "", "prompts file (.jsonl or .parquet)")
	fs.IntVar(&f.n, "n", 50, "use the first N prompts (0: all)")
	fs.Var(&f.models, "model", "a model to answer (repeatable; the first is the baseline): a checkpoint folder, or URL#NAME for a chat API")
	fs.IntVar(&f.maxTokens, "max-tokens", 1024, "answer tokens at most")
	fs.Float64Var(&f.temp, "temperature", 0.7, "answer sampling temperature (0: greedy)")
	fs.Float64Var(&f.topP, "top-p", 0.9, "answer nucleus sampling (1: off)")
	fs.Uint64Var(&f.seed, "seed", 1, "answer i of a model uses seed+i; also the judge's seed and the bootstrap's")
	fs.StringVar(&f.judgeURL, "judge-url", "", "the judge's OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1")
	fs.StringVar(&f.judgeModel, "judge-model", "", "the judge's model name on that server")
	fs.IntVar(&f.judgeMaxTokens, "judge-max-tokens", 512, "judgement tokens at most")
	fs.IntVar(&f.concurrency, "judge-concurrency", 8, "judge requests in flight")
	fs.StringVar(&f.mode, "mode", "pairwise", "pairwise or single")
	fs.Float64Var(&f.priceIn, "judge-price-in", 0, "a paid judge's price per million prompt tokens (USD), for the cost estimate")
	fs.Float64Var(&f.priceOut, "judge-price-out", 0, "… and per million completion tokens")
	fs.StringVar(&f.template, "judge-prompt", "", "a file replacing the judge's user prompt; pairwise needs {question}, {answer_a}, {answer_b}; single {question}, {answer}. Ask for the verdict as [[A]]/[[B]]/[[C]] or [[N]]")
	fs.StringVar(&f.out, "output", "", "output folder (required)")
	fs.StringVar(&f.device, "device", engine.DefaultDevice(), deviceHelp)
	fs.StringVar(&f.dtype, "dtype", engine.DTypeAuto, dtypeHelp+" (checkpoint --models)")
	setUsage(fs, strings.TrimRight(judgeUsage, "\n"))
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	tpl, err := f.check()
	if err != nil {
		return err
	}
	prompts, err := judge.LoadPrompts(f.prompts, f.n)
	if err != nil {
		return err
	}
	if err := report.PrepareOutput(f.out); err != nil {
		return err
	}
	judgeLM, err := apimodel.New(apimodel.Options{BaseURL: f.judgeURL, Model: f.judgeModel, Chat: true,
		APIKey: env.OpenAIAPIKey.Get(), Concurrency: f.concurrency})
	if err != nil {
		return errs.BadInputf("%v", err)
	}
	ctx, stop := signalContext()
	defer stop()
	answers := make([][]string, len(f.models))
	for i, m := range f.models {
		fmt.Fprintf(os.Stderr, "judge: answering %d prompts with %s\n", len(prompts), m)
		if answers[i], err = f.answer(ctx, m, prompts); err != nil {
			return fmt.Errorf("model %s: %w", m, err)
		}
	}
	if err := writeAnswers(filepath.Join(f.out, "answers.jsonl"), prompts, f.models, answers); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "judge: asking %s at %s\n", f.judgeModel, f.judgeURL)
	render := func(msgs []lm.ChatMessage) (string, error) { return apimodel.ChatJSON(msgs, true) }
	cfg := judge.Config{Template: tpl, Render: render, MaxTokens: f.judgeMaxTokens, Seed: f.seed}
	if f.mode == "single" {
		return f.single(ctx, judgeLM, cfg, prompts, answers)
	}
	return f.pairwise(ctx, judgeLM, cfg, prompts, answers)
}

func (f *judgeFlags) check() (judge.Template, error) {
	switch {
	case f.prompts == "":
		return judge.Template{}, errs.BadInputf("--prompts FILE is required")
	case len(f.models) < 1 || (f.mode == "pairwise" && len(f.models) < 2):
		return judge.Template{}, errs.BadInputf("give --model at least twice for pairwise judging (the first is the baseline), once for single")
	case f.judgeURL == "" || f.judgeModel == "":
		return judge.Template{}, errs.BadInputf("--judge-url and --judge-model are required (any OpenAI-compatible chat endpoint, e.g. goeval serve)")
	case f.out == "":
		return judge.Template{}, errs.BadInputf("--output DIR is required")
	case f.mode != "pairwise" && f.mode != "single":
		return judge.Template{}, errs.BadInputf("--mode %q: use pairwise or single", f.mode)
	case f.maxTokens < 1 || f.judgeMaxTokens < 1 || f.concurrency < 1 || f.n < 0:
		return judge.Template{}, errs.BadInputf("--max-tokens, --judge-max-tokens and --judge-concurrency must be ≥ 1, --n ≥ 0")
	case !(f.priceIn >= 0) || !(f.priceOut >= 0):
		return judge.Template{}, errs.BadInputf("--judge-price-in and --judge-price-out must be ≥ 0")
	case !(f.temp >= 0 && f.temp <= 2) || !(f.topP > 0 && f.topP <= 1):
		return judge.Template{}, errs.BadInputf("--temperature must be in [0, 2] and --top-p in (0, 1]")
	}
	if _, err := engine.ParseDType(f.dtype); err != nil {
		return judge.Template{}, err
	}
	for _, m := range f.models {
		if !strings.HasPrefix(m, "http") {
			if err := checkModelDir(m); err != nil {
				return judge.Template{}, err
			}
		}
	}
	return judge.LoadTemplate(f.template, f.mode)
}

// answer generates model m's answers: a checkpoint with its chat template,
// or URL#NAME through a chat API.
func (f *judgeFlags) answer(ctx context.Context, m string, prompts []judge.Prompt) ([]string, error) {
	var model lm.LM
	render := apimodel.ChatJSON
	if url, name, ok := strings.Cut(m, "#"); ok && strings.HasPrefix(m, "http") {
		a, err := apimodel.New(apimodel.Options{BaseURL: url, Model: name, Chat: true, APIKey: env.OpenAIAPIKey.Get()})
		if err != nil {
			return nil, errs.BadInputf("%v", err)
		}
		model = a
	} else {
		sf := scoreFlags{model: m, device: f.device, dtype: f.dtype, batch: 8}
		e, err := sf.open()
		if err != nil {
			return nil, err
		}
		defer e.Close()
		if e.ChatTemplate() == "" {
			return nil, errs.BadInputf("model %s has no chat template (tokenizer_config.json chat_template): judge answers need one", m)
		}
		model, render = e, e.ApplyChatTemplate
	}
	reqs := make([]lm.GenerateRequest, len(prompts))
	for i, p := range prompts {
		text, err := render([]lm.ChatMessage{{Role: "user", Content: p.Text}}, true)
		if err != nil {
			return nil, err
		}
		reqs[i] = lm.GenerateRequest{Context: text, MaxTokens: f.maxTokens, Temperature: float32(f.temp), Seed: f.seed + uint64(i)}
		if f.temp > 0 && f.topP < 1 {
			reqs[i].TopP = float32(f.topP)
		}
	}
	res, err := model.GenerateUntil(ctx, reqs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Text
	}
	return out, nil
}
