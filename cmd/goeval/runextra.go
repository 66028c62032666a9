package main

import (
	"strconv"

	"github.com/goeval/goeval/lm"
)

// runExtra returns the model-level keys lm-eval's HF model writes at the
// top of a results file: tokenizer_pad_token, tokenizer_eos_token,
// tokenizer_bos_token ([token, "id"], [null, "None"] when absent),
// eot_token_id (when there is an EOS token) and max_length.
func runExtra(info lm.Info) map[string]any {
	tok := func(t *lm.Token) []any {
		if t == nil {
			return []any{nil, "None"}
		}
		return []any{t.Text, strconv.Itoa(int(t.ID))}
	}
	out := map[string]any{"tokenizer_pad_token": tok(info.Pad), "tokenizer_eos_token": tok(info.EOS),
		"tokenizer_bos_token": tok(info.BOS), "max_length": info.MaxLength}
	if info.EOT != nil {
		out["eot_token_id"] = int(info.EOT.ID)
	}
	return out
}
