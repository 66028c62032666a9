// Package errs marks errors caused by bad input (files, flags, data), which
// the command line reports with exit status 2 instead of 1.
package errs

import (
	"errors"
	"fmt"
)

type badInput struct{ err error }

func (e badInput) Error() string  { return e.err.Error() }
func (e badInput) Unwrap() error  { return e.err }
func (e badInput) BadInput() bool { return true }

// BadInput wraps err as bad input. nil stays nil.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return badInput{err}
}

// BadInputf formats a bad-input error; %w works as in fmt.Errorf.
func BadInputf(format string, args ...any) error { return badInput{fmt.Errorf(format, args...)} }

// IsBadInput reports whether any error in err's chain is marked bad input.
func IsBadInput(err error) bool {
	var b interface{ BadInput() bool }
	return errors.As(err, &b) && b.BadInput()
}
