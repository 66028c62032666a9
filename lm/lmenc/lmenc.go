// Package lmenc holds lm-eval's rules for turning requests into token ids
// (its HFLM tok_encode, tok_batch_encode, _encode_pair, and the rolling
// windows of loglikelihood_rolling), shared by the engine and by clients of
// remote models, so both send a model the same tokens. It needs only a
// tokenizer: no GoMLX.
package lmenc

import (
	"strings"
	"unicode"
)

// Tokenizer is what the rules need of a tokenizer.
type Tokenizer interface {
	Encode(text string, addSpecial bool) []int32
	Decode(ids []int32, skipSpecial bool) string
	BOS() (id int32, ok bool)
}

// isPySpace matches Python's str.isspace closely enough for rstrip: Go's
// unicode.IsSpace plus the ASCII separators \x1c–\x1f that Python counts.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// Specials is how lm-eval's HFLM chooses add_special_tokens: the
// tokenizer's default, or the add_bos_token model argument when given;
// either way none for a string that already starts with the text of the
// prefix token (tok_encode) or of the BOS token (tok_batch_encode, the
// generation path), so a chat template's own BOS is not doubled.
type Specials struct {
	Prefix int32 // prefix_token_id
	AddBOS *bool // add_bos_token; nil: the tokenizer's default
}

// TokEncode is lm-eval's tok_encode.
func TokEncode(tok Tokenizer, s string, sp Specials) []int32 {
	return tok.Encode(s, sp.add(s, tok.Decode([]int32{sp.Prefix}, false)))
}

// GenEncode is lm-eval's tok_batch_encode for one context.
func GenEncode(tok Tokenizer, s string, sp Specials) []int32 {
	bos := ""
	if id, ok := tok.BOS(); ok {
		bos = tok.Decode([]int32{id}, false)
	}
	return tok.Encode(s, sp.add(s, bos))
}

// add is add_special_tokens for s when lead is the special text that
// turns it off.
func (sp Specials) add(s, lead string) bool {
	if lead != "" && strings.HasPrefix(s, lead) {
		return false
	}
	if sp.AddBOS != nil {
		return *sp.AddBOS
	}
	return true
}

// Pair is lm-eval's _encode_pair for causal models
// (lm_eval/api/model.py, TemplateLM):
// trailing context whitespace moves to the continuation, ctx+cont is
// encoded as a whole and split at len(encode(ctx)); an empty context
// becomes [prefix] (or the continuation's first token when that is the
// prefix).
func Pair(tok Tokenizer, context, continuation string, sp Specials) (ctxIDs, contIDs []int32) {
	if context == "" {
		return SplitEmptyContext(sp.Prefix, tok.Encode(continuation, false))
	}
	trimmed := strings.TrimRightFunc(context, isPySpace)
	if n := len(context) - len(trimmed); n > 0 {
		continuation = context[len(trimmed):] + continuation
		context = trimmed
	}
	whole := TokEncode(tok, context+continuation, sp)
	ctxIDs = TokEncode(tok, context, sp)
	if len(ctxIDs) > len(whole) {
		ctxIDs = whole // degenerate tokenizer; score nothing rather than panic
	}
	return whole[:len(ctxIDs)], whole[len(ctxIDs):]
}

// SplitEmptyContext applies lm-eval's empty-context rule to encoded ids.
func SplitEmptyContext(prefix int32, cont []int32) (ctxIDs, contIDs []int32) {
	if len(cont) > 0 && cont[0] == prefix {
		return cont[:1], cont[1:]
	}
	return []int32{prefix}, cont
}

// Window is one disjoint rolling window: score Cont given Ctx.
type Window struct{ Ctx, Cont []int32 }

// RollingWindows is lm-eval's get_rolling_token_windows(context_len=1)
// followed by make_disjoint_window (lm_eval/utils.py): every token is predicted
// exactly once; the first window is prefixed with prefix; later windows
// get a full maxLen-token context.
//
//	tokens t0 … t9, maxLen 4, prefix p:
//	  window 0: input [p t0 t1 t2]   predict t0 t1 t2 t3  → ctx [p],          cont t0…t3
//	  window 1: input [t3 t4 t5 t6]  predict t4 t5 t6 t7  → ctx [t3],         cont t4…t7
//	  window 2: input [t5 t6 t7 t8]  predict t8 t9        → ctx [t5 t6 t7],   cont t8 t9
func RollingWindows(tokens []int32, maxLen int, prefix int32) []Window {
	if len(tokens) == 0 {
		return nil
	}
	first := min(maxLen, len(tokens))
	in0 := append([]int32{prefix}, tokens[:first-1]...)
	out := []Window{disjoint(in0, tokens[:first])}
	for pred := first; pred < len(tokens); {
		w := min(len(tokens)-pred, maxLen)
		end := pred + w
		out = append(out, disjoint(tokens[end-maxLen-1:end-1], tokens[end-w:end]))
		pred += w
	}
	return out
}

// disjoint is make_disjoint_window: the context is the input minus the
// positions that are themselves predicted.
func disjoint(input, pred []int32) Window {
	return Window{Ctx: input[:len(input)-(len(pred)-1)], Cont: pred}
}
