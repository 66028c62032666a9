//go:build !cgo

package xlacache

import "errors"

// Install needs cgo (as XLA itself does).
func Install(path, dir string, warn func(string)) error {
	return errors.New("compile cache: this build has no cgo")
}

// Stats is zero without cgo.
func Stats() (hits, stores int64) { return 0, 0 }
