package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/gocpu"
)

func TestBackendSpec(t *testing.T) {
	t.Setenv("GOMLX_BACKEND", "")
	for _, c := range []struct{ device, want string }{{"", gocpu.Name}, {"cpu", gocpu.Name}} {
		if got, err := backendSpec(Options{Device: c.device}); err != nil || got != c.want {
			t.Errorf("device %q: %q, %v; want %q", c.device, got, err, c.want)
		}
	}
	t.Setenv("GOMLX_BACKEND", "go:dotgeneral_small")
	if got, _ := backendSpec(Options{Device: "cpu"}); got != "go:dotgeneral_small" {
		t.Errorf("cpu keeps go:options from GOMLX_BACKEND; got %q", got)
	}
	if _, err := backendSpec(Options{Device: "tpu"}); !errs.IsBadInput(err) {
		t.Errorf("unknown device: %v, want bad input", err)
	}
}

// TestPluginSearch: a missing plugin lists the paths searched and how to
// install one; a found plugin becomes an absolute xla: spec.
func TestPluginSearch(t *testing.T) {
	saved := pluginLocators["cuda"]
	defer func() { pluginLocators["cuda"] = saved }()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "xla_cuda_plugin.so")
	pluginLocators["cuda"] = []func() []string{func() []string { return []string{plugin} }}
	_, err := backendSpec(Options{Device: "cuda"})
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), plugin) || !strings.Contains(err.Error(), "pip install") {
		t.Fatalf("missing plugin: %v; want bad input naming %s and an install hint", err, plugin)
	}
	if err := os.WriteFile(plugin, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := backendSpec(Options{Device: "cuda"}); err != nil || got != "xla:"+plugin {
		t.Fatalf("found plugin: %q, %v; want xla:%s", got, err, plugin)
	}
}
