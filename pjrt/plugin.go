// Package pjrt installs and finds the PJRT plugins that goeval's XLA
// devices load: a pinned build per platform, downloaded once into the
// user's cache folder, verified by sha256 and written atomically.
//
// It knows nothing of GoMLX: engine asks it where an installed plugin is,
// and `goeval setup` (or the first run on --device auto) installs one.
package pjrt

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/goeval/goeval/internal/env"
)

// Plugin is one pinned plugin build: a file inside a Python wheel published
// on PyPI, and the hashes both must have.
type Plugin struct {
	Kind        string // "cpu"
	Package     string // PyPI project, e.g. "xla-cpu-pjrt"
	Version     string // its pinned version
	URL         string // the wheel's download address (PyPI's permanent file URL)
	WheelSHA256 string // hex sha256 of the wheel
	WheelSize   int64  // bytes of the wheel
	Member      string // the plugin's path inside the wheel
	SHA256      string // hex sha256 of the plugin file
	Size        int64  // bytes of the plugin file
}

// The CPU plugin is OpenXLA's own build ("The OpenXLA Authors", PJRT C API
// 0.81, the xla-cpu-pjrt project beside xla-cuda12/13-pjrt). It was chosen
// over an anonymous repackaging of the same plugin that is ~10 % faster
// (lammps-jax-pjrt-cpu): provenance first. The hashes are the wheels' as
// PyPI lists them, and the plugin's as each wheel's RECORD lists it.
var pinned = map[string]Plugin{
	"linux/amd64": {
		Kind: "cpu", Package: "xla-cpu-pjrt", Version: "0.0.1",
		URL:         "https://files.pythonhosted.org/packages/5d/ca/5487881b30d07396c168749ead36f57dbc4538cafdc535943afc81b3e5a2/xla_cpu_pjrt-0.0.1-py3-none-manylinux_2_27_x86_64.whl",
		WheelSHA256: "55837b6b7b47daa717f2d9a5a03563ea0ceaa338d06a81a1e2d3f060d960decc",
		WheelSize:   63461052,
		Member:      "xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so",
		SHA256:      "88c3f28c5900f48ad4a82cab9e79bba9537809743395e341485f8794268820dc",
		Size:        259284552,
	},
	"linux/arm64": {
		Kind: "cpu", Package: "xla-cpu-pjrt", Version: "0.0.1",
		URL:         "https://files.pythonhosted.org/packages/c9/2d/2c6703356beded886d95f9e37adb49aeca7b21e7617f2ff59893f038f61e/xla_cpu_pjrt-0.0.1-py3-none-manylinux_2_27_aarch64.whl",
		WheelSHA256: "8f613be6e891858f40d64f9799319502fff42689661944fc18a6ffd8210b30c9",
		WheelSize:   49514947,
		Member:      "xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so",
		SHA256:      "fcf411f3e8ff635c2b2cf87215aa7016f460e66d236c3db08309e7486583532d",
		Size:        200328224,
	},
}

// CPU returns the pinned CPU plugin of this platform; ok is false where
// none is published (then only the pure-Go backend runs on the CPU).
func CPU() (p Plugin, ok bool) {
	p, ok = pinned[runtime.GOOS+"/"+runtime.GOARCH]
	return p, ok
}

// String names the plugin: "xla-cpu-pjrt 0.0.1".
func (p Plugin) String() string { return p.Package + " " + p.Version }

// Path is where the plugin lives under the cache folder dir:
// dir/<package>-<version>/<file name>.
func (p Plugin) Path(dir string) string {
	return filepath.Join(dir, p.Package+"-"+p.Version, filepath.Base(p.Member))
}

// Dir is the plugin cache folder: $GOEVAL_PJRT_DIR, else
// <user cache dir>/goeval/pjrt ($XDG_CACHE_HOME/goeval/pjrt or
// ~/.cache/goeval/pjrt on Linux).
func Dir() (string, error) {
	if d := env.PJRTDir.Get(); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for PJRT plugins (%v): set GOEVAL_PJRT_DIR or XDG_CACHE_HOME", err)
	}
	return filepath.Join(c, "goeval", "pjrt"), nil
}

// Installed returns the path of the installed plugin p in dir when it is
// there whole (its size matches; the hash was checked when it was written,
// and it is only ever written by an atomic rename).
func (p Plugin) Installed(dir string) (string, bool) {
	path := p.Path(dir)
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() != p.Size {
		return "", false
	}
	return path, true
}

// Offline reports whether GOEVAL_OFFLINE forbids downloads (1, true, yes, on).
func Offline() bool {
	switch strings.ToLower(strings.TrimSpace(env.Offline.Get())) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
