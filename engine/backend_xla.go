//go:build cgo

package engine

import (
	"github.com/gomlx/go-xla/pkg/pjrt"
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/xla"

	"github.com/goeval/goeval/internal/env"
)

// newXLABackend loads a PJRT plugin (an absolute path or a go-xla plugin
// name) without go-xla's auto-install (no downloads at run time), its
// compiles cached on disk when cache names a folder and plugin a file.
func newXLABackend(plugin string, cache compileCache) (backends.Backend, error) {
	xla.EnableAutoInstall(false)
	cache.install(plugin)
	var options pjrt.NamedValuesMap
	if deviceOf("xla:"+plugin) == "cuda" && env.CUDAPreallocate.Get() != "1" {
		// The CUDA plugin would take 75% of the GPU's memory up front, so a
		// second engine (a sweep, tests, the user's own GPU programs) could
		// not start: grow the pool on demand instead.
		options = pjrt.NamedValuesMap{"preallocate": false}
	}
	if deviceOf("xla:"+plugin) == "xla-cpu" { // as many devices as XLA_FLAGS asks (replicas.go)
		options = pjrt.NamedValuesMap{"cpu_device_count": int64(hostDevices())}
	}
	return xla.NewWithOptions(plugin, options)
}

// xlaBuilt: this build has the XLA backend (it needs cgo).
const xlaBuilt = true
