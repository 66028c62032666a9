package engine

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/goeval/goeval/internal/errs"
)

// isPySpace matches Python's str.isspace closely enough for rstrip: Go's
// unicode.IsSpace plus the ASCII separators \x1c–\x1f that Python counts.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// specials is how lm-eval's HFLM chooses add_special_tokens: the
// tokenizer's default, or the add_bos_token model argument when given;
// either way none for a string that already starts with the text of the
// prefix token (tok_encode) or of the BOS token (tok_batch_encode, the
// generation path), so a chat template's own BOS is not doubled.
type specials struct {
	prefix int32 // prefix_token_id
	addBOS *bool // add_bos_token; nil: the tokenizer's default
}

// tokEncode is lm-eval's tok_encode.
func tokEncode(tok Tokenizer, s string, sp specials) []int32 {
	return tok.Encode(s, sp.add(s, tok.Decode([]int32{sp.prefix}, false)))
}

// genEncode is lm-eval's tok_batch_encode for one context.
func genEncode(tok Tokenizer, s string, sp specials) []int32 {
	bos := ""
	if id, ok := tok.BOS(); ok {
		bos = tok.Decode([]int32{id}, false)
	}
	return tok.Encode(s, sp.add(s, bos))
}

// add is add_special_tokens for s when lead is the special text that
// turns it off.
func (sp specials) add(s, lead string) bool {
	if lead != "" && strings.HasPrefix(s, lead) {
		return false
	}
	if sp.addBOS != nil {
		return *sp.addBOS
	}
	return true
}

// encodePair is lm-eval's _encode_pair for causal models (spec §8.1):
// trailing context whitespace moves to the continuation, ctx+cont is
// encoded as a whole and split at len(encode(ctx)); an empty context
// becomes [prefix] (or the continuation's first token when that is the
// prefix).
func encodePair(tok Tokenizer, context, continuation string, sp specials) (ctxIDs, contIDs []int32) {
	if context == "" {
		return splitEmptyContext(sp.prefix, tok.Encode(continuation, false))
	}
	trimmed := strings.TrimRightFunc(context, isPySpace)
	if n := len(context) - len(trimmed); n > 0 {
		continuation = context[len(trimmed):] + continuation
		context = trimmed
	}
	whole := tokEncode(tok, context+continuation, sp)
	ctxIDs = tokEncode(tok, context, sp)
	if len(ctxIDs) > len(whole) {
		ctxIDs = whole // degenerate tokenizer; score nothing rather than panic
	}
	return whole[:len(ctxIDs)], whole[len(ctxIDs):]
}

// splitEmptyContext applies lm-eval's empty-context rule to encoded ids.
func splitEmptyContext(prefix int32, cont []int32) (ctxIDs, contIDs []int32) {
	if len(cont) > 0 && cont[0] == prefix {
		return cont[:1], cont[1:]
	}
	return []int32{prefix}, cont
}

// item is one scoring row before batching: the model input and the
// targets of its last len(targets) positions.
type item struct {
	inp     []int32 // input tokens, at most maxLen
	targets []int32 // the continuation: targets of inp's last len(targets) positions
}

// makeItem is lm-eval's `(ctx + cont)[-(max_length+1):][:-1]`, scoring the
// last len(cont) positions.
func makeItem(ctxIDs, contIDs []int32, maxLen int) (item, error) {
	full := make([]int32, 0, len(ctxIDs)+len(contIDs))
	full = append(append(full, ctxIDs...), contIDs...)
	if len(full) > maxLen+1 {
		full = full[len(full)-(maxLen+1):]
	}
	if len(contIDs) == 0 {
		return item{}, nil
	}
	inp := full[:len(full)-1]
	if len(contIDs) > len(inp) {
		return item{}, errs.BadInputf("continuation has %d tokens but only %d positions fit in max_length %d (or the context is empty)",
			len(contIDs), len(inp), maxLen)
	}
	return item{inp: inp, targets: full[len(full)-len(contIDs):]}, nil
}

// checkIDs rejects token ids outside the vocabulary.
func checkIDs(ids []int32, vocab int, field string) error {
	for i, id := range ids {
		if id < 0 || int(id) >= vocab {
			return errs.BadInputf("%s[%d] = %d is outside the vocabulary [0, %d)", field, i, id, vocab)
		}
	}
	return nil
}

// RequestError is an error about one request of a call; Index is its
// position in the call's slice (callers map it back to their input).
type RequestError struct {
	Index int
	Err   error
}

func (e *RequestError) Error() string { return fmt.Sprintf("request %d: %v", e.Index, e.Err) }
func (e *RequestError) Unwrap() error { return e.Err }

// BadInput keeps the bad-input mark of the wrapped error.
func (e *RequestError) BadInput() bool { return errs.IsBadInput(e.Err) }

// requestError wraps err as a RequestError for request i.
func requestError(i int, err error) error { return &RequestError{Index: i, Err: err} }
