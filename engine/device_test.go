package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/gemm"
	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/pjrt"
)

// isolate gives the test a machine without plugins: empty cache, home and
// plugin path, no $GOMLX_BACKEND, no GPU, offline.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GOEVAL_PJRT_DIR", filepath.Join(dir, "pjrt"))
	t.Setenv("HOME", dir)
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", "")
	t.Setenv("GOMLX_BACKEND", "")
	t.Setenv("GOEVAL_OFFLINE", "1")
	t.Setenv("GOEVAL_PJRT_URL", "")
	t.Setenv("GOEVAL_DEVICE", "") // "" resolves as auto
	saved, savedFirst := gpuPresent, pureGoFirst
	gpuPresent = func() bool { return false }
	pureGoFirst = func() bool { return false }
	t.Cleanup(func() { gpuPresent, pureGoFirst = saved, savedFirst })
	return filepath.Join(dir, "pjrt")
}

func resolve(t *testing.T, device string) DeviceChoice {
	t.Helper()
	c, err := ResolveDevice(context.Background(), device, ResolveOptions{})
	if err != nil {
		t.Fatalf("ResolveDevice(%q): %v", device, err)
	}
	return c
}

func TestResolveAutoFallsBack(t *testing.T) {
	isolate(t)
	c := resolve(t, "auto")
	if c.Device != "cpu" || c.Spec != gocpu.Name || !strings.Contains(c.Notice, "GOEVAL_OFFLINE") || !strings.Contains(c.Notice, "goeval setup") {
		t.Fatalf("offline, no plugin: %+v; want cpu with a notice naming GOEVAL_OFFLINE and goeval setup", c)
	}
	if _, err := ResolveDevice(context.Background(), "xla-cpu", ResolveOptions{}); !errs.IsBadInput(err) || !strings.Contains(err.Error(), "goeval setup") {
		t.Fatalf("xla-cpu offline without a plugin: %v; want bad input saying goeval setup", err)
	}
}

// TestResolveAutoFindsPlugin: an installed pinned plugin makes auto pick
// xla-cpu; a CUDA plugin wins only with a GPU.
func TestResolveAutoFindsPlugin(t *testing.T) {
	dir := isolate(t)
	p, ok := pjrt.CPU()
	if !ok {
		t.Fatalf("no pinned CPU plugin for this platform; this test covers linux/amd64 and linux/arm64")
	}
	path := p.Path(dir)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("stand-in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := resolve(t, ""); c.Device != "xla-cpu" || c.Spec != "xla:"+path || c.Notice != "" {
		t.Fatalf("installed plugin: %+v; want xla-cpu on %s", c, path)
	}
	cuda := filepath.Join(t.TempDir(), "xla_cuda_plugin.so")
	os.WriteFile(cuda, nil, 0o644)
	saved := pluginLocators["cuda"]
	pluginLocators["cuda"] = []func() []string{func() []string { return []string{cuda} }}
	defer func() { pluginLocators["cuda"] = saved }()
	if c := resolve(t, "auto"); c.Device != "xla-cpu" {
		t.Errorf("CUDA plugin without a GPU: %+v; want xla-cpu", c)
	}
	gpuPresent = func() bool { return true }
	if c := resolve(t, "auto"); c.Device != "cuda" || c.Spec != "xla:"+cuda {
		t.Errorf("CUDA plugin and a GPU: %+v; want cuda", c)
	}
}

// TestResolveAutoPrefersPureGo: where the pure-Go backend is the faster
// CPU device (assembly kernels: AVX2 or AVX-512) auto picks it over an installed XLA
// plugin, with no notice and the reason; a GPU with a CUDA plugin still
// wins.
func TestResolveAutoPrefersPureGo(t *testing.T) {
	dir := isolate(t)
	pureGoFirst = func() bool { return true }
	p, _ := pjrt.CPU()
	path := p.Path(dir)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("stand-in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := resolve(t, "auto"); c.Device != "cpu" || c.Spec != gocpu.Name || c.Notice != "" || !strings.Contains(c.Why, gemm.Kernel()+" kernels") {
		t.Fatalf("AVX2/AVX-512 CPU with a plugin installed: %+v; want cpu saying why, no notice", c)
	}
	cuda := filepath.Join(t.TempDir(), "xla_cuda_plugin.so")
	os.WriteFile(cuda, nil, 0o644)
	saved := pluginLocators["cuda"]
	pluginLocators["cuda"] = []func() []string{func() []string { return []string{cuda} }}
	defer func() { pluginLocators["cuda"] = saved }()
	gpuPresent = func() bool { return true }
	if c := resolve(t, "auto"); c.Device != "cuda" {
		t.Errorf("CUDA plugin and a GPU: %+v; want cuda", c)
	}
}

// TestResolveAutoBadDownload: a download that fails its hash check falls
// back to the pure-Go backend with the reason, installing nothing.
func TestResolveAutoBadDownload(t *testing.T) {
	dir := isolate(t)
	t.Setenv("GOEVAL_OFFLINE", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("not a wheel")) }))
	defer srv.Close()
	t.Setenv("GOEVAL_PJRT_URL", srv.URL+"/x.whl")
	c := resolve(t, "auto")
	if c.Device != "cpu" || !strings.Contains(c.Notice, "installing the XLA CPU plugin failed") || !strings.Contains(c.Notice, "bytes, want") {
		t.Fatalf("bad download: %+v; want cpu with the failure in the notice", c)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "xla-cpu-pjrt-0.0.1")); len(ents) != 0 {
		t.Errorf("files left in the cache: %v", ents)
	}
}

func TestResolveExplicit(t *testing.T) {
	isolate(t)
	t.Setenv("GOMLX_BACKEND", "xla:/opt/some_cuda_plugin.so")
	if c := resolve(t, "auto"); c.Device != "cuda" || c.Spec != "xla:/opt/some_cuda_plugin.so" {
		t.Errorf("auto with $GOMLX_BACKEND: %+v", c)
	}
	for _, spec := range []string{"gocpu:bf16=dot", "go"} { // cpu takes a pure-Go backend's options
		t.Setenv("GOMLX_BACKEND", spec)
		if c := resolve(t, "cpu"); c.Device != "cpu" || c.Spec != spec || !c.CustomCPU() {
			t.Errorf("cpu with $GOMLX_BACKEND=%s: %+v (CustomCPU %v)", spec, c, c.CustomCPU())
		}
	}
	t.Setenv("GOMLX_BACKEND", "xla:/opt/some_cuda_plugin.so")
	if c := resolve(t, "cpu"); c.Spec != gocpu.Name || c.CustomCPU() {
		t.Errorf("cpu with an XLA $GOMLX_BACKEND: %+v, want goeval's backend", c)
	}
	t.Setenv("GOMLX_BACKEND", "")
	t.Setenv("GOEVAL_DEVICE", "cpu")
	if c := resolve(t, ""); c.Device != "cpu" || c.Notice != "" {
		t.Errorf("GOEVAL_DEVICE=cpu: %+v", c)
	}
	if _, err := ResolveDevice(context.Background(), "tpu", ResolveOptions{}); !errs.IsBadInput(err) {
		t.Errorf("tpu: %v, want bad input", err)
	}
}
