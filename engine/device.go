package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/gemm"
	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/pjrt"
)

// Devices: "auto" (the default) picks the fastest device this machine can
// run, installing the pinned XLA CPU plugin on first use; "cpu" is the
// pure-Go backend, "xla-cpu" XLA on the CPU, "cuda" XLA on an NVIDIA GPU.

// DeviceChoice is what a device name resolved to.
type DeviceChoice struct {
	Device string // "cpu", "xla-cpu" or "cuda"
	Spec   string // the GoMLX backend spec: "go", "xla:/abs/plugin.so", …
	Why    string // how it was chosen, for the "device:" line
	// Notice is set when auto settled for the pure-Go backend: how much
	// faster the XLA path is and how to get it.
	Notice string
}

// String is the line goeval prints: "xla-cpu (PJRT plugin …)".
func (c DeviceChoice) String() string { return c.Device + " (" + c.Why + ")" }

// ResolveOptions configure [ResolveDevice].
type ResolveOptions struct {
	// NoInstall keeps auto and xla-cpu from downloading the CPU plugin
	// (GOEVAL_OFFLINE=1 does too).
	NoInstall bool
	// Progress receives the plugin download's progress bar (nil: none).
	Progress io.Writer
}

// fallbackNotice finishes the notice of an auto run that settled for the
// pure-Go backend where XLA is the faster CPU device (pureGoFirst false).
const fallbackNotice = "on this CPU (no AVX2, so no assembly matrix kernels for the pure-Go backend) XLA is the faster CPU device; %s, or pass --device cpu to silence this"

// pureGoFirst reports whether auto prefers the pure-Go backend to XLA on
// the CPU: where its matrix kernels are assembly (x86-64 with AVX2 and
// FMA, or AVX-512). There whole evaluations ran faster on it than on XLA
// in every same-run comparison (bench/peers/run_vs_lmeval.sh;
// docs/PERFORMANCE.md): on AVX2 (Zen 3) across three rounds, on AVX-512 (Zen 5)
// 4.57× lm-eval against XLA's 2.95× once its direct (decode) kernels were
// written; XLA compiles each shape and its decode steps are slower, though
// its large scoring batches can be a little faster (goeval bench score).
// Elsewhere (arm64, x86-64 without AVX2) the pure-Go kernel is plain Go
// and XLA stays first. A variable for tests.
var pureGoFirst = func() bool {
	k := gemm.Kernel()
	return k == "avx2+fma" || k == "avx512"
}

// DefaultDevice is $GOEVAL_DEVICE, else "auto": the device used when none
// is given.
func DefaultDevice() string {
	if d := strings.TrimSpace(env.Device.Get()); d != "" {
		return d
	}
	return "auto"
}

// ResolveDevice turns a device name ("" = [DefaultDevice]) into a backend.
// auto: $GOMLX_BACKEND when set; else cuda when a CUDA plugin and an NVIDIA
// GPU are present; else cpu where it is the faster CPU device
// (pureGoFirst); else xla-cpu when a CPU plugin is installed or can be
// (the pinned one, see package pjrt); else cpu, with a Notice. xla-cpu
// installs the pinned plugin when none is found. Errors are bad input.
func ResolveDevice(ctx context.Context, device string, o ResolveOptions) (DeviceChoice, error) {
	if device == "" {
		device = DefaultDevice()
	}
	gomlx := env.GoMLXBackend.Get()
	switch device {
	case "auto":
		if gomlx != "" {
			return DeviceChoice{Device: deviceOf(gomlx), Spec: gomlx, Why: "$GOMLX_BACKEND=" + gomlx}, nil
		}
		return resolveAuto(ctx, o), nil
	case "cpu":
		if deviceOf(gomlx) == "cpu" { // go[:opts] or gocpu[:opts]
			return DeviceChoice{Device: "cpu", Spec: gomlx, Why: "pure-Go backend, $GOMLX_BACKEND=" + gomlx}, nil
		}
		return DeviceChoice{Device: "cpu", Spec: gocpu.Name, Why: "pure-Go backend"}, nil
	case "xla-cpu":
		return resolveXLACPU(ctx, o)
	case "cuda":
		path, searched := findPlugin("cuda")
		if path == "" {
			return DeviceChoice{}, errs.BadInputf("--device cuda: no PJRT cuda plugin found; looked in %s. %s",
				strings.Join(searched, ", "), pluginHints["cuda"])
		}
		return DeviceChoice{Device: "cuda", Spec: "xla:" + path, Why: "PJRT plugin " + path}, nil
	}
	return DeviceChoice{}, errs.BadInputf("device %q is not supported (use auto, cpu, xla-cpu or cuda)", device)
}

// resolveAuto is auto without $GOMLX_BACKEND.
func resolveAuto(ctx context.Context, o ResolveOptions) DeviceChoice {
	cpu := DeviceChoice{Device: "cpu", Spec: gocpu.Name, Why: "pure-Go backend"}
	if xlaBuilt && gpuPresent() {
		if path, _ := findPlugin("cuda"); path != "" {
			return DeviceChoice{Device: "cuda", Spec: "xla:" + path, Why: "NVIDIA GPU, PJRT plugin " + path}
		}
	}
	if pureGoFirst() {
		cpu.Why = "pure-Go backend: with its " + gemm.Kernel() + " kernels it runs whole evaluations faster than XLA; --device xla-cpu for XLA"
		return cpu
	}
	p, pinned := pjrt.CPU()
	if !xlaBuilt {
		cpu.Notice = "this goeval was built without cgo (CGO_ENABLED=0), so it has no XLA device; " +
			fmt.Sprintf(fallbackNotice, "rebuild with CGO_ENABLED=1")
		return cpu
	}
	if path, _ := findPlugin("cpu"); path != "" {
		return DeviceChoice{Device: "xla-cpu", Spec: "xla:" + path, Why: "PJRT plugin " + path}
	}
	switch {
	case !pinned:
		cpu.Notice = "goeval pins no XLA CPU plugin for this platform; " +
			fmt.Sprintf(fallbackNotice, "set PJRT_PLUGIN_LIBRARY_PATH to a folder holding pjrt_c_api_cpu_plugin.so")
		return cpu
	case o.NoInstall || pjrt.Offline():
		cpu.Notice = "the XLA CPU plugin is not installed and GOEVAL_OFFLINE forbids downloading it; " +
			fmt.Sprintf(fallbackNotice, "run `goeval setup` once online (a 63 MB download)")
		return cpu
	}
	path, err := pjrt.Install(ctx, p, pjrt.InstallOptions{Progress: o.Progress})
	if err != nil {
		cpu.Notice = fmt.Sprintf("installing the XLA CPU plugin failed (%v); ", err) +
			fmt.Sprintf(fallbackNotice, "retry with `goeval setup`")
		return cpu
	}
	return installedChoice(p, path)
}

// installedChoice is xla-cpu on the plugin p just installed at path.
func installedChoice(p pjrt.Plugin, path string) DeviceChoice {
	return DeviceChoice{Device: "xla-cpu", Spec: "xla:" + path, Why: "PJRT plugin " + p.String() + ", installed now at " + path}
}

// resolveXLACPU finds or installs the CPU plugin.
func resolveXLACPU(ctx context.Context, o ResolveOptions) (DeviceChoice, error) {
	if path, _ := findPlugin("cpu"); path != "" {
		return DeviceChoice{Device: "xla-cpu", Spec: "xla:" + path, Why: "PJRT plugin " + path}, nil
	}
	if !xlaBuilt {
		return DeviceChoice{}, errs.BadInputf("--device xla-cpu: this goeval was built without cgo (CGO_ENABLED=0), which the XLA backend needs; rebuild with CGO_ENABLED=1 or use --device cpu")
	}
	p, ok := pjrt.CPU()
	switch {
	case !ok:
		return DeviceChoice{}, errs.BadInputf("--device xla-cpu: goeval pins no PJRT CPU plugin for this platform; %s", pluginHints["cpu"])
	case o.NoInstall || pjrt.Offline():
		return DeviceChoice{}, errs.BadInputf("--device xla-cpu: the PJRT CPU plugin is not installed and GOEVAL_OFFLINE forbids downloading it; run `goeval setup` where the network is reachable (or set GOEVAL_PJRT_DIR to a folder that holds it)")
	}
	path, err := pjrt.Install(ctx, p, pjrt.InstallOptions{Progress: o.Progress})
	if err != nil {
		return DeviceChoice{}, errs.BadInputf("--device xla-cpu: installing the PJRT CPU plugin failed: %v; run `goeval setup` to retry", err)
	}
	return installedChoice(p, path), nil
}

// CustomCPU reports whether c runs the cpu device on another backend spec
// than its default, goeval's pure-Go backend without options ($GOMLX_BACKEND
// gocpu:OPTIONS, or GoMLX's simplego): some options give other numbers
// (bf16=dot), so a results file records the spec.
func (c DeviceChoice) CustomCPU() bool {
	return c.Device == "cpu" && c.Spec != "" && c.Spec != gocpu.Name
}

// deviceOf names the device of a backend spec.
func deviceOf(spec string) string {
	name, plugin, _ := strings.Cut(spec, ":")
	switch {
	case name == "go" || name == gocpu.Name:
		return "cpu"
	case strings.Contains(strings.ToLower(plugin), "cuda"):
		return "cuda"
	}
	return "xla-cpu"
}

// gpuPresent reports whether an NVIDIA driver exposes a GPU here (a
// variable for tests).
var gpuPresent = func() bool {
	for _, p := range []string{"/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/nvidia0"} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// cachedCPUPlugin lists the pinned CPU plugin in goeval's cache folder.
func cachedCPUPlugin() []string {
	p, ok := pjrt.CPU()
	dir, err := pjrt.Dir()
	if !ok || err != nil {
		return nil
	}
	return []string{p.Path(dir)}
}

// describeSpec is the "device:" text for an Options.Backend override.
func describeSpec(spec string) DeviceChoice {
	return DeviceChoice{Device: deviceOf(spec), Spec: spec, Why: fmt.Sprintf("backend %s", spec)}
}

// XLAAvailable reports whether this build has the XLA backend (cgo).
func XLAAvailable() bool { return xlaBuilt }
