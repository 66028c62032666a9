package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/env"
)

// TestCUDAFullPrecision: before a CUDA plugin loads, TF32 is switched off
// in cuBLAS and XLA's Triton GEMMs, without overriding what the user set,
// and GOEVAL_CUDA_TF32=1 leaves XLA's defaults alone.
func TestCUDAFullPrecision(t *testing.T) {
	for _, c := range []struct {
		name, tf32, override, flags string
		wantOverride, wantFlags     string
	}{
		{"defaults", "", "", "", "0", "--xla_gpu_enable_triton_gemm=false"},
		{"user flags kept", "", "", "--xla_dump_to=/tmp/d", "0", "--xla_dump_to=/tmp/d --xla_gpu_enable_triton_gemm=false"},
		{"user choice wins", "", "1", "--xla_gpu_enable_triton_gemm=true", "1", "--xla_gpu_enable_triton_gemm=true"},
		{"opt out", "1", "", "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(env.CUDATF32.Name, c.tf32)
			t.Setenv("XLA_FLAGS", c.flags)
			t.Setenv("NVIDIA_TF32_OVERRIDE", c.override)
			if c.override == "" {
				os.Unsetenv("NVIDIA_TF32_OVERRIDE") // restored by t.Setenv's cleanup
			}
			cudaFullPrecision()
			cudaFullPrecision() // idempotent: the flag is not added twice
			if got := os.Getenv("NVIDIA_TF32_OVERRIDE"); got != c.wantOverride {
				t.Errorf("NVIDIA_TF32_OVERRIDE = %q, want %q", got, c.wantOverride)
			}
			if got := os.Getenv("XLA_FLAGS"); got != c.wantFlags {
				t.Errorf("XLA_FLAGS = %q, want %q", got, c.wantFlags)
			}
		})
	}
}

// TestCUDASetupXLAFlags: the XLA_FLAGS a CUDA backend starts with, for
// several of the user's: the Triton GEMMs off unless the user chose, and
// triton-softmax-rewriter disabled, joined to the user's own list of
// disabled passes, or not at all when that list is empty; with
// GOEVAL_CUDA_TF32=1 only the pass.
func TestCUDASetupXLAFlags(t *testing.T) {
	const gemm, pass = "--xla_gpu_enable_triton_gemm=false", "--xla_disable_hlo_passes=triton-softmax-rewriter"
	for _, c := range []struct{ tf32, user, want string }{
		{"", "", gemm + " " + pass},
		{"", "--xla_dump_to=/tmp/d", "--xla_dump_to=/tmp/d " + gemm + " " + pass},
		{"", "--xla_disable_hlo_passes=foo,bar", "--xla_disable_hlo_passes=foo,bar,triton-softmax-rewriter " + gemm},
		{"", "--xla_disable_hlo_passes=triton-softmax-rewriter", "--xla_disable_hlo_passes=triton-softmax-rewriter " + gemm},
		{"", "--xla_disable_hlo_passes=", "--xla_disable_hlo_passes= " + gemm},
		{"", "--xla_gpu_enable_triton_gemm=true --xla_disable_hlo_passes=foo", "--xla_gpu_enable_triton_gemm=true --xla_disable_hlo_passes=foo,triton-softmax-rewriter"},
		{"1", "", pass},
		{"1", "--xla_disable_hlo_passes=foo", "--xla_disable_hlo_passes=foo,triton-softmax-rewriter"},
	} {
		t.Run(c.user+"/tf32="+c.tf32, func(t *testing.T) {
			t.Setenv(env.CUDATF32.Name, c.tf32)
			t.Setenv("NVIDIA_TF32_OVERRIDE", "")
			t.Setenv("XLA_FLAGS", c.user)
			cudaSetup()
			cudaSetup() // idempotent
			if got := os.Getenv("XLA_FLAGS"); got != c.want {
				t.Errorf("XLA_FLAGS = %q, want %q", got, c.want)
			}
		})
	}
}

// TestJAXPluginBesidePython: the CUDA plugin of a JAX installed in the
// virtual environment whose python3 is first on $PATH is found (a GPU
// image's /opt/…/.venv), through the venv's own bin/python3 even when that
// is a link to the system's.
func TestJAXPluginBesidePython(t *testing.T) {
	isolate(t)
	t.Setenv("VIRTUAL_ENV", "")
	venv := filepath.Join(t.TempDir(), "venv")
	plugin := filepath.Join(venv, "lib", "python3.12", "site-packages", "jax_plugins", "xla_cuda13", "xla_cuda_plugin.so")
	if err := os.MkdirAll(filepath.Dir(plugin), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(plugin, nil, 0o644)
	bin := filepath.Join(venv, "bin")
	os.MkdirAll(bin, 0o755)
	real := filepath.Join(t.TempDir(), "python3.12")
	os.WriteFile(real, []byte("#!/bin/sh\n"), 0o755)
	if err := os.Symlink(real, filepath.Join(bin, "python3")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	got, searched := findPlugin("cuda")
	if got != plugin {
		t.Fatalf("findPlugin(cuda) = %q, want %s; searched:\n%s", got, plugin, strings.Join(searched, "\n"))
	}
}
