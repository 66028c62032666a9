package main

import (
	"fmt"

	"github.com/goeval/goeval/internal/errs"
)

func init() {
	register("synth", "write a deterministic tiny model, tokenizer or dataset (synth model|tokenizer|data)", runSynth)
}

// runSynth dispatches "synth model" (synth_model.go) and "synth data"
// (synth_data.go).
func runSynth(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Println("Usage:\n  goeval synth model --arch llama|mistral|qwen2|qwen3 [...] --seed N --out DIR\n  goeval synth data --task NAME --out DIR\n  goeval synth tokenizer --out DIR [--vocab N]\nRun 'goeval synth model --help' or 'goeval synth data --help' for their flags.")
		if len(args) == 0 {
			return errs.BadInputf("synth needs 'model' or 'data'")
		}
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
