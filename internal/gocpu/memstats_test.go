package gocpu

import (
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestMemStats: with memory statistics on, an execution's peak is the
// intermediates live at once — a chain of ten element-wise ops over 4096
// floats holds two values at a time (each released once its consumer ran),
// a value read again at the end stays live beside them — and off,
// nothing is recorded.
func TestMemStats(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	const n = 4096
	chain := func(x *Node) *Node {
		for range 10 {
			x = Neg(x)
		}
		return x
	}
	in := tensors.FromFlatDataAndDimensions(make([]float32, n), n)
	for _, c := range []struct {
		name string
		fn   func(x *Node) *Node
		peak int64
	}{
		{"chain", func(x *Node) *Node { return ReduceAllSum(chain(x)) }, 2 * 4 * n},
		{"kept", func(x *Node) *Node { a := Abs(x); return ReduceAllSum(Add(chain(a), a)) }, 3 * 4 * n},
	} {
		exec, err := NewExec(b, c.fn)
		if err != nil {
			t.Fatal(err)
		}
		SetMemStats(true)
		if _, err := exec.Exec(in); err != nil {
			t.Fatal(err)
		}
		s := MemStats()
		SetMemStats(false)
		if s.Executions != 1 || s.Peak != c.peak || s.Largest != 4*n {
			t.Errorf("%s: %d executions, peak %d bytes, largest %d (%s); want 1, %d, %d", c.name, s.Executions, s.Peak, s.Largest, s.LargestKey, c.peak, 4*n)
		}
		if len(s.AtPeak) != int(c.peak/(4*n)) {
			t.Errorf("%s: %d values live at the peak, want %d: %+v", c.name, len(s.AtPeak), c.peak/(4*n), s.AtPeak)
		}
		if _, err := exec.Exec(in); err != nil {
			t.Fatal(err)
		}
		if s := MemStats(); s.Executions != 1 {
			t.Errorf("%s: statistics off, yet %d executions recorded", c.name, s.Executions)
		}
	}
}
