//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"runtime"
)

// mode is how a program is isolated (Linux only).
type mode int

func (mode) String() string { return "unsupported" }

var errUnsupported = errors.New("sandbox: running generated code needs Linux (namespaces, seccomp, Landlock); this is " + runtime.GOOS)

func findPython(string) (string, error) { return "", errUnsupported }
func (s *Sandbox) probe() error         { return errUnsupported }
func (s *Sandbox) runOne(context.Context, string, bool) (Result, error) {
	return Result{}, errUnsupported
}
