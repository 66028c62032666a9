package engine

import (
	"os"
	"testing"
)

// TestDequantize4BitFits: only xla-cpu allows dequantizing a 4-bit
// checkpoint at load by default, half the memory available, and
// Keep4BitPacked turns that off.
func TestDequantize4BitFits(t *testing.T) {
	for _, d := range []string{"cpu", "cuda"} {
		if n := dequantize4BitFits(d, Options{}); n != 0 {
			t.Errorf("%s: %d bytes allowed, want 0", d, n)
		}
	}
	if n := dequantize4BitFits("xla-cpu", Options{Keep4BitPacked: true}); n != 0 {
		t.Errorf("xla-cpu with Keep4BitPacked: %d bytes allowed, want 0", n)
	}
	n := dequantize4BitFits("xla-cpu", Options{})
	if _, err := os.Stat("/proc/meminfo"); err == nil && (n <= 0 || n > memAvailable()) {
		t.Errorf("xla-cpu: %d bytes allowed, want half of MemAvailable (%d)", n, memAvailable())
	}
}
