package nn

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestRotaryTablesShared: within a graph, one positions node and one
// frequency slice give the same cos/sin nodes (built once for every
// layer); other frequencies or another graph give their own.
func TestRotaryTablesShared(t *testing.T) {
	backend, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	inv, other := []float64{1, 0.1}, []float64{1, 0.1}
	g := NewGraph(backend, "a")
	pos := Parameter(g, "positions", shapes.Make(dtypes.Int32, 2, 3))
	c1, s1 := rotaryTables(pos, inv, dtypes.Float32)
	c2, s2 := rotaryTables(pos, inv, dtypes.Float32)
	if c1 != c2 || s1 != s2 {
		t.Error("same positions and frequencies: tables built twice")
	}
	if c3, _ := rotaryTables(pos, other, dtypes.Float32); c3 == c1 {
		t.Error("other frequencies share the first tables")
	}
	if got := c1.Shape().Dimensions; len(got) != 4 || got[2] != 1 || got[3] != 4 {
		t.Errorf("cos table %v, want [2 3 1 4]", got)
	}
	g2 := NewGraph(backend, "b")
	pos2 := Parameter(g2, "positions", shapes.Make(dtypes.Int32, 2, 3))
	if c4, _ := rotaryTables(pos2, inv, dtypes.Float32); c4 == c1 || c4.Graph() != g2 {
		t.Error("a new graph reuses the last graph's tables")
	}
}

// TestApplyRoPEValues: rotate_half rotation of each head by position ×
// frequency, the tables broadcast over heads.
func TestApplyRoPEValues(t *testing.T) {
	backend, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	inv := []float64{1, 0.5}
	x := []float32{1, 2, 3, 4, -1, 0.5, 2, -3, 0.25, 1, -2, 5, 3, -1, 1, 2} // [1, 2, 2, 4]
	pos := []int32{0, 3}
	exec, err := NewExec(backend, func(x, p *Node) *Node { return ApplyRoPE(x, p, inv) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(tensors.FromFlatDataAndDimensions(x, 1, 2, 2, 4), tensors.FromFlatDataAndDimensions(pos, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[float32](out[0])
	for tk := range 2 {
		for h := range 2 {
			v := x[(tk*2+h)*4 : (tk*2+h)*4+4]
			for i := range 4 {
				a := float64(pos[tk]) * inv[i%2]
				rot := float64(v[(i+2)%4]) // rotate_half: (−x2, x1)
				if i < 2 {
					rot = -rot
				}
				want := float64(v[i])*math.Cos(a) + rot*math.Sin(a)
				if g := float64(got[(tk*2+h)*4+i]); math.Abs(g-want) > 1e-5 {
					t.Errorf("t=%d head %d dim %d: %v, want %v", tk, h, i, g, want)
				}
			}
		}
	}
}
