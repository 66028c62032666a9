//go:build cgo

package xlacache

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gomlx/go-xla/pkg/pjrt"

	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/procfs"
)

var (
	mu      sync.Mutex
	active  *store         // the one wrapped plugin's cache (shim.c keeps one plugin)
	wrapped unsafe.Pointer // its wrapped PJRT_Api
)

// Install registers the PJRT plugin file at path (absolute) with go-xla,
// under that same path, its compiles cached in dir; call it before
// anything loads the plugin. warn receives the cache's warnings (one per
// kind of failure). A second call for the same plugin does nothing; one
// for another plugin is an error (a process caches one plugin's compiles).
func Install(path, dir string, warn func(string)) error {
	return install(path, dir, warn, func(api uintptr) error { return pjrt.RegisterPreloadedPlugin(path, api) })
}

// install is Install with the registration given (tests drive the wrapped
// API directly, without go-xla).
func install(path, dir string, warn func(string), register func(api uintptr) error) error {
	mu.Lock()
	defer mu.Unlock()
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("compile cache: %w", err)
	}
	// XLA_FLAGS (final by now: the engine adds its own before the plugin
	// loads) change what XLA compiles without changing the program or its
	// compile options, and XLA's CPU code uses the host's instructions
	// (a folder shared by an AVX-512 and an AVX2 machine must not hand one
	// the other's code), so both are part of every key.
	plugin := fmt.Sprintf("%s|%d|%d|%s|%s", path, st.Size(), st.ModTime().UnixNano(), env.XLAFlags.Get(), hostCPU())
	if active != nil {
		if active.plugin == plugin {
			return nil
		}
		return fmt.Errorf("compile cache: already caching %s; not caching a second plugin %s", active.plugin, path)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var msg [512]C.char
	api := C.goeval_xlacache_wrap(cpath, &msg[0], C.size_t(len(msg)))
	if api == nil {
		return fmt.Errorf("compile cache: loading %s: %s", path, C.GoString(&msg[0]))
	}
	active, wrapped = &store{dir: dir, plugin: plugin, warn: warn}, unsafe.Pointer(api)
	if err := register(uintptr(api)); err != nil {
		active, wrapped = nil, nil
		return fmt.Errorf("compile cache: registering %s: %w", path, err)
	}
	return nil
}

// hostCPU names this machine's processor: its architecture, model and
// instruction-set flags (/proc/cpuinfo on Linux; the architecture alone
// elsewhere).
func hostCPU() string {
	model, _ := procfs.Field("/proc/cpuinfo", "model name")
	flags, _ := procfs.Field("/proc/cpuinfo", "flags")
	return runtime.GOARCH + "|" + model + "|" + flags
}

// Stats returns how many compiles in this process were loaded from the
// cache (hits) and how many were compiled and saved into it (stores).
func Stats() (hits, stores int64) {
	mu.Lock()
	s := active
	mu.Unlock()
	if s == nil {
		return 0, 0
	}
	return s.hits.Load(), s.stores.Load()
}

// compileThrough compiles program with options through the wrapped
// PJRT_Api's compile entry, as go-xla would (the package's tests drive the
// shim with it): the executable, or the plugin's error.
func compileThrough(program, options string) (unsafe.Pointer, error) {
	code, opts := C.CString(program), C.CString(options)
	defer C.free(unsafe.Pointer(code))
	defer C.free(unsafe.Pointer(opts))
	var msg [512]C.char
	client := unsafe.Pointer(&msg[0]) // any pointer: the fake plugin ignores its client
	exe := C.goeval_xlacache_compile_through(wrapped, client, code, C.size_t(len(program)),
		opts, C.size_t(len(options)), &msg[0], C.size_t(len(msg)))
	if exe == nil {
		return nil, fmt.Errorf("%s", C.GoString(&msg[0]))
	}
	return exe, nil
}

// bytesOf views C memory as a Go slice for the duration of a callback.
func bytesOf(p *C.char, n C.size_t) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

//export goevalXLACacheKey
func goevalXLACacheKey(ident *C.char, identLen C.size_t, code *C.char, codeLen C.size_t,
	format *C.char, formatLen C.size_t, options *C.char, optionsLen C.size_t, key *C.char) C.int {
	k := active.key(bytesOf(ident, identLen), bytesOf(code, codeLen), bytesOf(format, formatLen), bytesOf(options, optionsLen))
	copy(bytesOf(key, C.size_t(len(k))), k[:])
	return 1
}

//export goevalXLACacheLoad
func goevalXLACacheLoad(key *C.char, size *C.size_t) *C.char {
	data, ok := active.load(bytesOf(key, 32))
	if !ok {
		return nil
	}
	*size = C.size_t(len(data))
	return (*C.char)(C.CBytes(data))
}

//export goevalXLACacheStore
func goevalXLACacheStore(key *C.char, data *C.char, size C.size_t) {
	active.save(bytesOf(key, 32), bytesOf(data, size))
}

//export goevalXLACacheDrop
func goevalXLACacheDrop(key *C.char) { active.drop(bytesOf(key, 32)) }

//export goevalXLACacheHit
func goevalXLACacheHit() { active.hits.Add(1) }

//export goevalXLACacheReport
func goevalXLACacheReport(what *C.char, msg *C.char, n C.size_t) {
	active.report(C.GoString(what), string(bytesOf(msg, n)))
}
