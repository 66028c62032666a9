package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
)

func init() {
	register("generate", "generate continuations of JSON-lines prompts (greedy or sampled, with stop strings)", runGenerate)
}

// generateIn is one prompt line of goeval generate.
type generateIn struct {
	Prompt    *string `json:"prompt"`
	PromptIDs []int32 `json:"prompt_ids"`
}

// generateOut is one result line.
type generateOut struct {
	Text string  `json:"text"`
	IDs  []int32 `json:"ids"`
}

// genFlags are goeval generate's flags besides the engine ones.
type genFlags struct {
	adapters  stringList
	until     stringList
	maxTokens int
	temp      float64
	topP      float64
	topK      int
	seed      uint64
}

func (g *genFlags) register(fs *flag.FlagSet) {
	fs.Var(&g.adapters, "adapter", "PEFT LoRA adapter directory, merged into the weights at load")
	fs.Var(&g.until, "until", "stop string (repeatable); the output is cut at the first occurrence of any (lm-eval's until)")
	fs.IntVar(&g.maxTokens, "max-tokens", 256, "maximum generated tokens per prompt (lm-eval max_gen_toks)")
	fs.Float64Var(&g.temp, "temperature", 0, "sampling temperature; 0 = greedy (argmax)")
	fs.Float64Var(&g.topP, "top-p", 1, "nucleus sampling: keep the most likely tokens up to this probability mass (1 = off; needs --temperature > 0)")
	fs.IntVar(&g.topK, "top-k", 0, "keep only the k most likely tokens (0 = off; needs --temperature > 0)")
	fs.Uint64Var(&g.seed, "seed", 0, "sampling seed; prompt i uses seed+i, so an output does not depend on the other prompts")
}

// check rejects values out of range, naming the flag, and sampling filters
// that greedy decoding would silently ignore.
func (g *genFlags) check() error {
	switch {
	case g.maxTokens < 1:
		return errs.BadInputf("--max-tokens %d out of range: use ≥ 1", g.maxTokens)
	case !(g.temp >= 0) || math.IsInf(g.temp, 1):
		return errs.BadInputf("--temperature %v out of range: use ≥ 0 (0 = greedy)", g.temp)
	case !(g.topP > 0 && g.topP <= 1):
		return errs.BadInputf("--top-p %v out of range: use (0, 1] (1 = off)", g.topP)
	case g.topK < 0:
		return errs.BadInputf("--top-k %d out of range: use ≥ 0 (0 = off)", g.topK)
	case g.temp > 0:
		return nil
	case g.topK > 0:
		return errs.BadInputf("--top-k needs --temperature > 0 (greedy decoding ignores it)")
	case g.topP < 1:
		return errs.BadInputf("--top-p needs --temperature > 0 (greedy decoding ignores it)")
	}
	return nil
}

func runGenerate(args []string) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	var f scoreFlags
	var g genFlags
	f.register(fs)
	g.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval generate --model DIR [flags] < prompts.jsonl")
		fmt.Fprintln(fs.Output(), "Reads one prompt per line: {\"prompt\": str} (encoded with the model's tokenizer) or {\"prompt_ids\": [int]}.")
		fmt.Fprintln(fs.Output(), "Writes one line per prompt: {\"text\": str, \"ids\": [int]}: the generated ids (including the EOS id that ended them, if any) and their text (special tokens skipped, cut at the first --until string).")
		fmt.Fprintln(fs.Output(), "Generation stops at an --until string, an EOS id (config.json, generation_config.json, tokenizer_config.json) or after --max-tokens.")
		fs.PrintDefaults()
	}
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errs.BadInputf("generate takes no arguments, got %q (prompts come on stdin)", fs.Arg(0))
	}
	if err := g.check(); err != nil {
		return err
	}
	prompts, err := readPrompts(os.Stdin)
	if err != nil {
		return err
	}
	e, err := f.openWith(g.adapters, engine.AdapterMerged)
	if err != nil {
		return err
	}
	defer e.Close()
	reqs := make([]lm.GenerateRequest, len(prompts))
	for i, p := range prompts {
		reqs[i] = lm.GenerateRequest{ContextIDs: p.PromptIDs, Until: g.until, MaxTokens: g.maxTokens,
			Temperature: float32(g.temp), TopP: float32(g.topP), TopK: g.topK, Seed: g.seed + uint64(i)}
		if p.Prompt != nil {
			reqs[i].Context = *p.Prompt
		}
	}
	res, err := e.GenerateUntil(context.Background(), reqs)
	if err != nil {
		return stdinLine(err, len(prompts), func(i int) int { return prompts[i].line })
	}
	out := make([]generateOut, len(res))
	for i, r := range res {
		out[i] = generateOut{Text: r.Text, IDs: r.IDs}
	}
	return writeJSONLines(os.Stdout, out)
}

// promptRow is a parsed prompt with its stdin line.
type promptRow struct {
	generateIn
	line int
}

// readPrompts parses every line; errors name the line.
func readPrompts(r io.Reader) ([]promptRow, error) {
	var out []promptRow
	err := readJSONLines(r, func(line int, in generateIn) error {
		switch {
		case in.Prompt != nil && in.PromptIDs == nil:
		case in.Prompt == nil && len(in.PromptIDs) > 0:
		case in.Prompt == nil && in.PromptIDs != nil:
			return errs.BadInputf("stdin line %d: \"prompt_ids\" must be a non-empty list of token ids", line)
		default:
			return errs.BadInputf("stdin line %d: want exactly one of {\"prompt\": str} or {\"prompt_ids\": [int]}", line)
		}
		out = append(out, promptRow{in, line})
		return nil
	})
	return out, err
}
