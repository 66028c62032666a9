package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"

	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/gocpu"
)

// Backend choice. This file is the only one that names GoMLX backends; it
// never blank-imports backends/default (which would try to download PJRT
// plugins when offline). device.go resolves device names to backend specs:
// Options.Backend (a GOMLX_BACKEND-style spec) wins; otherwise
// ResolveDevice(Options.Device).

// deviceChoice resolves o's backend: Options.Backend as given (named
// Options.Device when set), else ResolveDevice.
func deviceChoice(ctx context.Context, o Options) (DeviceChoice, error) {
	if o.Backend != "" {
		c := describeSpec(o.Backend)
		if o.Device != "" && o.Device != "auto" {
			c.Device = o.Device
		}
		return c, nil
	}
	return ResolveDevice(ctx, o.Device, ResolveOptions{Progress: o.PluginProgress})
}

// backendSpec turns Options into a GoMLX backend spec ("go[:opts]" or
// "xla:<plugin>").
func backendSpec(o Options) (string, error) {
	c, err := deviceChoice(context.Background(), o)
	return c.Spec, err
}

// newBackend creates the backend for spec; an XLA plugin's compiles are
// cached in cache (compilecache.go; "" for none).
func newBackend(spec string, cache compileCache) (backends.Backend, error) {
	name, config, _ := strings.Cut(spec, ":")
	switch name {
	case "go":
		b, err := simplego.New(config)
		if err != nil {
			return nil, errs.BadInputf("backend %q: %w", spec, err)
		}
		return b, nil
	case gocpu.Name:
		b, err := gocpu.New(config)
		if err != nil {
			return nil, errs.BadInputf("backend %q: %w", spec, err)
		}
		return b, nil
	case "xla", "stablehlo":
		// go-xla v0.1.4 would otherwise point XLA_FLAGS at a developer's
		// home. (The write cannot fail for this name and value.)
		_, _ = env.SetDefault(env.GoPJRTCUDAChecks, "0")
		if deviceOf(spec) == "cuda" {
			cudaSetup()
		}
		return newXLABackend(config, cache)
	}
	return nil, errs.BadInputf("backend %q: unknown backend (use go[:options] or xla:<plugin path>)", spec)
}

// pluginHints says how to install a plugin of each kind.
var pluginHints = map[string]string{
	"cuda": "Install one with `pip install -U \"jax[cuda12]\"` (goeval finds jax_plugins/xla_cuda12/xla_cuda_plugin.so in that Python's site-packages), or set PJRT_PLUGIN_LIBRARY_PATH to a directory holding pjrt_c_api_cuda_plugin.so, or pass the plugin as GOMLX_BACKEND=xla:/abs/path/plugin.so.",
	"cpu":  "`goeval setup` installs OpenXLA's CPU plugin (xla-cpu-pjrt from PyPI) into goeval's cache folder; or set PJRT_PLUGIN_LIBRARY_PATH to a folder holding pjrt_c_api_cpu_plugin.so, or pass it as GOMLX_BACKEND=xla:/abs/path/plugin.so.",
}

// pluginLocators lists, per plugin kind ("cpu", "cuda"), functions that
// return candidate plugin files in preference order (tests replace them).
var pluginLocators = map[string][]func() []string{
	"cpu":  {cachedCPUPlugin, goXLAPlugins("cpu")},
	"cuda": {goXLAPlugins("cuda"), jaxCUDAPlugins},
}

// findPlugin returns the first existing candidate for kind, and every
// candidate it looked at (for the error message).
func findPlugin(kind string) (found string, searched []string) {
	for _, locate := range pluginLocators[kind] {
		for _, p := range locate() {
			searched = append(searched, p)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				if abs, err := filepath.Abs(p); err == nil {
					return abs, searched
				}
				return p, searched
			}
		}
	}
	return "", searched
}

// goXLAPlugins lists pjrt_c_api_<kind>_plugin.so in PJRT_PLUGIN_LIBRARY_PATH
// and go-xla's (and gopjrt's) install directories.
func goXLAPlugins(kind string) func() []string {
	return func() []string {
		var dirs []string
		if env := env.PJRTPluginLibraryPath.Get(); env != "" {
			dirs = append(dirs, filepath.SplitList(env)...)
		}
		if home, err := os.UserHomeDir(); err == nil {
			dirs = append(dirs, filepath.Join(home, ".local/lib/go-xla"), filepath.Join(home, ".local/lib/gomlx/pjrt"))
		}
		dirs = append(dirs, "/usr/local/lib/go-xla", "/usr/local/lib/gomlx/pjrt")
		var out []string
		for _, d := range dirs {
			if d != "" {
				out = append(out, filepath.Join(d, fmt.Sprintf("pjrt_c_api_%s_plugin.so", kind)))
			}
		}
		return out
	}
}

// jaxCUDAPlugins lists JAX's pip-installed CUDA plugins
// (jax_plugins/xla_cuda{13,12}/xla_cuda_plugin.so) in the site-packages of
// $VIRTUAL_ENV, ./.venv, ~/.local and the system Pythons.
func jaxCUDAPlugins() []string {
	var roots []string
	if v := env.VirtualEnv.Get(); v != "" {
		roots = append(roots, v)
	}
	roots = append(roots, ".venv")
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".local"))
	}
	roots = append(roots, pythonRoots()...)
	roots = append(roots, "/usr/local", "/usr", "/opt/conda")
	var out []string
	for _, r := range roots {
		for _, sp := range []string{"site-packages", "dist-packages"} {
			matches, _ := filepath.Glob(filepath.Join(r, "lib", "python3*", sp))
			for _, m := range matches {
				for _, v := range []string{"xla_cuda13", "xla_cuda12"} {
					out = append(out, filepath.Join(m, "jax_plugins", v, "xla_cuda_plugin.so"))
				}
			}
		}
	}
	return out
}

// pythonRoots returns the install prefix (a virtual environment's folder) of
// the python3 and python on $PATH, unresolved: a venv's python is a link to
// the system's, but its packages live beside the link.
func pythonRoots() []string {
	var roots []string
	for _, name := range []string{"python3", "python"} {
		if p, err := exec.LookPath(name); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				roots = append(roots, filepath.Dir(filepath.Dir(abs)))
			}
		}
	}
	return roots
}

// ProbeBackend creates the backend of spec and frees it again, returning
// its description: proof that a plugin loads.
func ProbeBackend(spec string) (name string, err error) {
	err = tryCatch("backend "+spec, func() error {
		b, err := newBackend(spec, compileCacheOf(Options{}))
		if err != nil {
			return err
		}
		name = b.Description()
		b.Finalize()
		return nil
	})
	return name, err
}

// inGoHeap reports whether backend keeps tensors in Go memory (the pure-Go
// backends).
func inGoHeap(b backends.Backend) bool {
	return b.String() == "go" || b.String() == gocpu.Name
}
