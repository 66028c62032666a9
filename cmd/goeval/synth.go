package main

import (
	"fmt"

	"github.com/goeval/goeval/internal/errs"
)

func init() {
	register("synth", "write a deterministic tiny model, tokenizer or dataset (synth model|tokenizer|data)", runSynth)
}

// runSynth dispatches "synth model" (synth_model.go), "synth tokenizer"
// and "synth data" (synth_data.go).
func runSynth(args []string) error {
	if len(args) == 0 { // a usage error: one line
		return errs.BadInputf("missing what to write: model, tokenizer or data (see 'goeval synth --help')")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Println("Usage:\n  goeval synth model --arch llama|mistral|qwen2|qwen3 [...] --seed N --out DIR\n  goeval synth data --task NAME[,NAME...] --out DIR\n  goeval synth tokenizer --out DIR [--vocab N]\nRun 'goeval synth model|tokenizer|data --help' for their flags.")
		return nil
	}
	switch args[0] {
	case "model":
		return runSynthModel(args[1:])
	case "data":
		return runSynthData(args[1:])
	case "tokenizer":
		return runSynthTokenizer(args[1:])
	}
	return errs.BadInputf("unknown synth kind %q: use 'model', 'tokenizer' or 'data'", args[0])
}
