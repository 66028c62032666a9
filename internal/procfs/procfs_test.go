package procfs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestKB: a key's kB value in bytes; a missing key, file or number is 0.
func TestKB(t *testing.T) {
	p := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(p, []byte("Name:\tgoeval\nVmHWM:\t  2048 kB\nMemAvailable:   12 kB\nBad: x kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int64{"VmHWM": 2048 << 10, "MemAvailable": 12 << 10, "Bad": 0, "Missing": 0} {
		if got := KB(p, key); got != want {
			t.Errorf("KB(%s) = %d, want %d", key, got, want)
		}
	}
	if got := KB(filepath.Join(t.TempDir(), "none"), "VmHWM"); got != 0 {
		t.Errorf("missing file: %d", got)
	}
}

// TestField: the first line of a key, tab-separated as in /proc/cpuinfo;
// a missing key or file is false.
func TestField(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cpuinfo")
	if err := os.WriteFile(p, []byte("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2\nmodel name\t: other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"model name": "AMD EPYC", "flags": "fpu avx2", "processor": "0"} {
		if got, ok := Field(p, key); !ok || got != want {
			t.Errorf("Field(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := Field(p, "model"); ok {
		t.Error("a key's prefix matched")
	}
	if _, ok := Field(filepath.Join(t.TempDir(), "none"), "flags"); ok {
		t.Error("missing file: found")
	}
}
