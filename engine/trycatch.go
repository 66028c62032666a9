package engine

import (
	"fmt"
	"runtime/debug"
)

// tryCatch runs fn and turns a panic (GoMLX graph building and execution
// report errors by panicking) into an error.
func tryCatch(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("%s: %w", what, e)
			} else {
				err = fmt.Errorf("%s: %v", what, r)
			}
			if debugPanics {
				err = fmt.Errorf("%w\n%s", err, debug.Stack())
			}
		}
	}()
	return fn()
}

// debugPanics adds stack traces to recovered panics (set in tests when
// debugging).
var debugPanics = false
