package peak

import (
	"testing"
	"time"
)

// TestMeasure: the measured peak is positive and the kernel is the one the
// CPU's features call for (a loop that did nothing would give +Inf or 0).
func TestMeasure(t *testing.T) {
	r := Measure(30 * time.Millisecond)
	if r.GFLOPS <= 0 || r.GFLOPS > 1e5 || r.Threads < 1 {
		t.Fatalf("implausible peak %+v", r)
	}
	has := map[string]bool{}
	for _, f := range Features() {
		has[f] = true
	}
	want := "scalar"
	switch {
	case has["avx512f"]:
		want = "avx512"
	case has["avx2"] && has["fma"]:
		want = "avx2+fma"
	}
	if r.Kernel != want {
		t.Errorf("kernel %s, want %s for features %v", r.Kernel, want, Features())
	}
}
