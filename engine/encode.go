package engine

import (
	"fmt"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/internal/errs"
)

// makeItem is lm-eval's `(ctx + cont)[-(max_length+1):][:-1]`, scoring the
// last len(cont) positions: the model input (at most maxLen tokens) and
// the continuation as the targets of its last len(cont) positions.
func makeItem(ctxIDs, contIDs []int32, maxLen int) (plan.Item, error) {
	full := make([]int32, 0, len(ctxIDs)+len(contIDs))
	full = append(append(full, ctxIDs...), contIDs...)
	if len(full) > maxLen+1 {
		full = full[len(full)-(maxLen+1):]
	}
	if len(contIDs) == 0 {
		return plan.Item{}, nil
	}
	inp := full[:len(full)-1]
	if len(contIDs) > len(inp) {
		return plan.Item{}, errs.BadInputf("continuation has %d tokens but only %d positions fit in max_length %d (or the context is empty)",
			len(contIDs), len(inp), maxLen)
	}
	return plan.Item{Input: inp, Targets: full[len(full)-len(contIDs):]}, nil
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
