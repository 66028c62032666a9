package gocpu

import (
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestOpStats: with op timing on, each op run is counted under its op and
// shapes; off, nothing is recorded.
func TestOpStats(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	exec, err := NewExec(b, func(x *Node) *Node { return ReduceAllSum(Exp(Mul(x, x))) })
	if err != nil {
		t.Fatal(err)
	}
	in := tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	SetOpStats(true)
	for range 3 {
		if _, err := exec.Exec(in); err != nil {
			t.Fatal(err)
		}
	}
	SetOpStats(false)
	if _, err := exec.Exec(in); err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, s := range OpStats() {
		calls[s.Key] = s.Calls
	}
	if n := calls["Exp (Float32)[2 3] ← (Float32)[2 3]"]; n != 3 {
		t.Errorf("Exp counted %d times, want 3 (table %v)", n, calls)
	}
	if n := calls["Mul (Float32)[2 3] ← (Float32)[2 3], (Float32)[2 3]"]; n != 3 {
		t.Errorf("Mul counted %d times, want 3 (table %v)", n, calls)
	}
	var sb strings.Builder
	WriteOpStats(&sb, 2)
	if out := sb.String(); !strings.HasPrefix(out, "op profile: ") || !strings.Contains(out, "Exp (all shapes)") {
		t.Errorf("WriteOpStats:\n%s", out)
	}
}
