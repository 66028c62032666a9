package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/goeval/goeval/internal/errs"
)

// PrepareOutput makes sure dir can receive results files before any work
// starts: it creates dir (and its parents) when missing and proves it
// writable with a probe file. A path that is a file, or a folder that
// cannot be created or written, is bad input.
func PrepareOutput(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return errs.BadInputf("--output-path %s is a file, not a folder: give a folder for the results", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.BadInputf("--output-path %s: %v", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errs.BadInputf("--output-path %s cannot be created: %v", dir, unwrapPath(err))
	}
	probe, err := os.CreateTemp(dir, ".goeval-write-probe-*")
	if err != nil {
		return errs.BadInputf("--output-path %s is not writable: %v", dir, unwrapPath(err))
	}
	name := probe.Name()
	probe.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("--output-path %s: remove write probe: %w", dir, err)
	}
	return nil
}

// unwrapPath drops the path from a *fs.PathError (the message names it).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
