package engine

import (
	"fmt"
	"strings"
)

// Out-of-memory back-off. With the batch auto (Options.BatchSize 0, goeval's
// --batch-size auto) a forward pass that fails because the device ran out
// of memory is not the end of the call: a scoring call plans the requests
// not yet scored again in passes of half the rows (score.go's scorePlan),
// and from then on the engine's scoring batch is halved; a generation call
// restarts the requests not yet finished in a cache of half the rows
// (generate_loop.go), and its later calls keep within that. Results are
// unchanged: a request's scores and tokens do not depend on its
// neighbours or the batch size (the invariance tests). A pass of one row
// that still does not fit fails the call with the device's error, as does
// any failure with the batch given. Stats.Backoffs counts the halvings,
// Stats.Batch and GenStats.Rows say what ran.
//
// PJRT reports a failed allocation as RESOURCE_EXHAUSTED (go-xla: "PJRT
// error (code=8): …"), with XLA's "Out of memory while trying to allocate
// N bytes"; CUDA's own "out of memory" can reach the message too. goeval's
// pure-Go backend allocates in the Go heap, where running out ends the
// process: there is nothing to back off from.

// oomHook, set only by tests, runs before each forward pass of kind
// ("scoring", "prefill", "extend", "decode") with rows rows of tokens
// tokens in all, and fails it with its error (an injected allocation
// failure).
var oomHook func(kind string, rows, tokens int) error

// injectOOM is oomHook's verdict on a pass (nil without a hook).
func injectOOM(kind string, rows, tokens int) error {
	if oomHook == nil {
		return nil
	}
	return oomHook(kind, rows, tokens)
}

// isOOM reports whether err says the device ran out of memory.
func isOOM(err error) bool {
	if err == nil {
		return false
	}
	s := strings.ToLower(err.Error())
	for _, m := range []string{"resource_exhausted", "resource exhausted", "out of memory", "pjrt error (code=8)"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// oomError is the error an allocation failure gives on XLA's CUDA plugin
// through go-xla (for tests and their hooks).
func oomError(bytes int64) error {
	return fmt.Errorf("PJRT error (code=8): RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes.", bytes)
}

// canBackOff reports whether a pass of rows rows that failed with err is
// retried with half the rows: the batch is auto, the device ran out of
// memory, and there are rows to halve.
func (e *Engine) canBackOff(err error, rows int) bool {
	return e.opts.BatchSize == 0 && rows > 1 && isOOM(err)
}

// noteBackOff counts and logs one halving after a kind pass of rows rows
// ran out of memory.
func (e *Engine) noteBackOff(kind string, rows int, err error) {
	e.stats.Backoffs++
	e.opts.logf("%s pass of %d rows ran out of device memory; retrying with %d rows (batch auto): %v", kind, rows, rows/2, err)
}
