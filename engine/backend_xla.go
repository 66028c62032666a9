//go:build cgo

package engine

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/xla"
)

// newXLABackend loads a PJRT plugin (an absolute path or a go-xla plugin
// name) without go-xla's auto-install (no downloads at run time).
func newXLABackend(plugin string) (backends.Backend, error) {
	xla.EnableAutoInstall(false)
	return xla.NewWithOptions(plugin, nil)
}

// xlaBuilt: this build has the XLA backend (it needs cgo).
const xlaBuilt = true
