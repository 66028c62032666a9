package main

import (
	"flag"
	"fmt"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/synth"
)

// runSynthTokenizer writes a small deterministic byte-level BPE tokenizer.
func runSynthTokenizer(args []string) error {
	fs := flag.NewFlagSet("synth tokenizer", flag.ContinueOnError)
	vocab := fs.Int("vocab", 512, "vocabulary size: 256 byte tokens + learned merges + 3 ChatML special tokens")
	out := fs.String("out", "", "output directory for tokenizer.json and tokenizer_config.json (required)")
	eos := fs.String("eos", synth.Specials[0], "eos_token: <|endoftext|> (Qwen base tokenizers) or <|im_end|> (Qwen chat tokenizers: eos differs from the pad token and from config.json's bos_token_id)")
	setUsage(fs, "Usage: goeval synth tokenizer --out DIR [--vocab N] [--eos TOKEN]\n\nWrites a deterministic byte-level BPE tokenizer (Hugging Face tokenizer.json layout, ChatML chat template).")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if *out == "" {
		return errs.BadInputf("--out is required")
	}
	if err := checkOutFolder(*out); err != nil {
		return err
	}
	ids, err := synth.TokenizerEOS(*out, *vocab, *eos)
	if err != nil {
		return errs.BadInput(err)
	}
	fmt.Printf("wrote %s (vocab %d, eos %d)\n", *out, *vocab, ids[*eos])
	return nil
}
