package gemm

import (
	"os"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/env"
)

// TestEmptyAndZeroK: K = 0 gives zeros; m = 0 or N = 0 touch nothing.
func TestEmptyAndZeroK(t *testing.T) {
	c := []float32{7, 7, 7, 7}
	MatMul(c, 2, nil, 0, 2, PackB(nil, 0, 2, 2, false), 1)
	sameBits(t, "K=0", c, []float32{0, 0, 0, 0})
	MatMul(nil, 3, nil, 4, 0, PackB(make([]float32, 12), 4, 3, 3, false), 4)
	MatMul(nil, 0, make([]float32, 8), 4, 2, PackB(nil, 4, 0, 0, false), 4)
}

// TestChoose: GOEVAL_GEMM_KERNEL forces a kernel this CPU has; unknown
// names keep the default; a kernel that fails the self-check is skipped.
func TestChoose(t *testing.T) {
	cands := available()
	if got := choose(cands, ""); got != cands[0] {
		t.Errorf("default %s, want %s", got.name, cands[0].name)
	}
	if got := choose(cands, "go"); got != goKernel {
		t.Errorf("forced go: got %s", got.name)
	}
	if got := choose(cands, "nonsense"); got != cands[0] {
		t.Errorf("unknown name: got %s", got.name)
	}
	for _, k := range cands {
		if k.name == "avx2+fma" {
			if got := choose(cands, "avx2"); got != k {
				t.Errorf("forced avx2: got %s", got.name)
			}
		}
	}
	bad := *goKernel
	bad.name = "bad"
	bad.run = func(k int, a, b, c []float32, ldc int, load bool, _ hint) {
		kernGo(k, a, b, c, ldc, load, hint{})
		c[0] += 1e-3 // one wrong element
	}
	if got := choose([]*kernel{&bad, goKernel}, ""); got != goKernel {
		t.Errorf("a kernel failing the self-check was chosen")
	}
	if Kernel() != defaultKernel().name || Kernel() == "" {
		t.Errorf("Kernel() = %q", Kernel())
	}
	if os.Getenv(env.GemmKernel.Name) == "go" && Kernel() != "go" {
		t.Errorf("%s=go: Kernel() = %q", env.GemmKernel.Name, Kernel())
	}
}

// TestPanics: short slices and strides are programmer errors with a clear
// message.
func TestPanics(t *testing.T) {
	pb := PackB(make([]float32, 12), 4, 3, 3, false)
	for name, f := range map[string]func(){
		"short b":   func() { PackB(make([]float32, 11), 4, 3, 3, false) },
		"small ldb": func() { PackB(make([]float32, 12), 4, 3, 2, false) },
		"short a":   func() { MatMul(make([]float32, 6), 3, make([]float32, 7), 4, 2, pb, 1) },
		"short c":   func() { MatMul(make([]float32, 5), 3, make([]float32, 8), 4, 2, pb, 1) },
		"small ldc": func() { MatMul(make([]float32, 6), 2, make([]float32, 8), 4, 2, pb, 1) },
		"nil b":     func() { MatMul(nil, 0, nil, 0, 0, nil, 1) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "gemm: ") {
					t.Errorf("%s: recovered %v, want a gemm: panic", name, r)
				}
			}()
			f()
		}()
	}
}
