package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
)

// readJSONLines decodes every non-empty line of r (stdin) as a T and hands
// it to each with its line number. Errors name the stdin line.
func readJSONLines[T any](r io.Reader, each func(line int, v T) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<28)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return errs.BadInputf("stdin line %d: invalid JSON: %v", line, err)
		}
		if err := each(line, v); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return errs.BadInputf("reading stdin: %v", err)
	}
	return nil
}

// writeJSONLines writes one JSON object per line.
func writeJSONLines[T any](w io.Writer, rows []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return bw.Flush()
}

// stdinLine rewrites an engine error about request i of a call of n
// requests as an error naming the stdin line line(i); bad input stays bad
// input.
func stdinLine(err error, n int, line func(i int) int) error {
	var re *engine.RequestError
	if errors.As(err, &re) && re.Index >= 0 && re.Index < n {
		err = fmt.Errorf("stdin line %d: %w", line(re.Index), re.Err)
		if errs.IsBadInput(re.Err) {
			return errs.BadInput(err)
		}
	}
	return err
}
