//go:build !cgo

package engine

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
)

// newXLABackend is unavailable in builds without cgo.
func newXLABackend(plugin string, _ compileCache) (backends.Backend, error) {
	return nil, fmt.Errorf("backend xla:%s: this goeval was built without cgo (CGO_ENABLED=0), which the XLA backend needs; rebuild with CGO_ENABLED=1 or use --device cpu", plugin)
}

// xlaBuilt: builds without cgo have no XLA backend.
const xlaBuilt = false
