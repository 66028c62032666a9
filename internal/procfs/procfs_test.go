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
