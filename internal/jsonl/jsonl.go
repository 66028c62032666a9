// Package jsonl reads JSON lines the one way goeval does everywhere
// (datasets, stdin requests, samples files, judgements, fixtures): one
// value per line, lines of any length, blank lines skipped, lines numbered
// from 1 so that errors can name them.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Lines calls each with every non-blank line of r (surrounding white space
// trimmed) and its line number. It returns each's first error as it is,
// and a read error of r wrapped as "read: …".
func Lines(r io.Reader, each func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if line := bytes.TrimSpace(b); len(line) > 0 {
			if cerr := each(n, line); cerr != nil {
				return cerr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
}

// Decode decodes every non-blank line of r into a T (encoding/json) and
// calls each with it. A line that does not decode stops the reading with
// a *LineError.
func Decode[T any](r io.Reader, each func(n int, v T) error) error {
	return Lines(r, func(n int, line []byte) error {
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return &LineError{Line: n, Err: err}
		}
		return each(n, v)
	})
}

// LineError is a line that did not decode.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }
