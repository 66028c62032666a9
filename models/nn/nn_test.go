package nn

import (
	"math"
	"reflect"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

func TestInvFreqScaling(t *testing.T) {
	plain, err := InvFreq(8, 10000, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range plain {
		want := float64(float32(math.Pow(10000, -float64(2*i)/8)))
		if f != want {
			t.Fatalf("θ_%d = %v, want %v", i, f, want)
		}
	}
	lin, _ := InvFreq(8, 10000, &RopeScaling{Type: "linear", Factor: 4})
	for i := range lin {
		if lin[i] != plain[i]/4 {
			t.Fatalf("linear θ_%d = %v, want %v/4", i, lin[i], plain[i])
		}
	}
	// llama3 with original context 64, low 1, high 4: wavelength 2π/θ above
	// 64 → θ/factor; below 16 → unchanged; between → smooth blend.
	s := &RopeScaling{Type: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbeddings: 64}
	l3, err := InvFreq(16, 10000, s)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := InvFreq(16, 10000, nil)
	for i, f := range base {
		wave := 2 * math.Pi / f
		switch {
		case wave < 16:
			if l3[i] != f {
				t.Errorf("high-frequency θ_%d changed: %v → %v", i, f, l3[i])
			}
		case wave > 64:
			if math.Abs(l3[i]-f/8) > 1e-7*f {
				t.Errorf("low-frequency θ_%d = %v, want θ/8 = %v", i, l3[i], f/8)
			}
		default:
			if !(l3[i] <= f && l3[i] >= f/8) {
				t.Errorf("medium θ_%d = %v not between θ/8 and θ (%v)", i, l3[i], f)
			}
		}
	}
	if _, err := InvFreq(8, 10000, &RopeScaling{Type: "yarn", Factor: 2}); err == nil {
		t.Fatal("yarn: want an unsupported-type error")
	}
}

// TestAttentionMaskWindow checks causal and sliding-window (q − k < w) masks.
func TestAttentionMaskWindow(t *testing.T) {
	backend, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	exec, err := NewExec(backend, func(g *Graph) *Node {
		pos := Iota(g, shapes.Make(dtypes.Int32, 1, 4), 1)
		return AttentionMask(pos, pos, nil, 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec()
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[bool](out[0])
	want := []bool{
		true, false, false, false,
		true, true, false, false,
		false, true, true, false,
		false, false, true, true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("window-2 mask = %v, want %v", got, want)
	}
}

// TestPackedMask: one row holding a tree — node 1 (a shared prefix) with
// children 2 (itself with child 3) and 4 —, a second tree (node 5) and a
// padding token (node 0, end 1): a token sees its own node and its
// ancestors only; trees and padding never see each other.
func TestPackedMask(t *testing.T) {
	backend, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	exec, err := NewExec(backend, func(node, end *Node) *Node { return PackedMask(node, end) })
	if err != nil {
		t.Fatal(err)
	}
	//             n1 n2 n3 n4 n4 n5 pad
	node := [][]int32{{1, 2, 3, 4, 4, 5, 0}}
	end := [][]int32{{5, 4, 4, 5, 5, 6, 1}}
	out, err := exec.Exec(node, end)
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[bool](out[0])
	T, F := true, false
	want := []bool{
		T, F, F, F, F, F, F, // node 1: itself only
		T, T, F, F, F, F, F, // node 2: node 1 + itself
		T, T, T, F, F, F, F, // node 3: nodes 1, 2 + itself
		T, F, F, T, T, F, F, // node 4: node 1 + itself (causality is AttentionMask's)
		T, F, F, T, T, F, F,
		F, F, F, F, F, T, F, // node 5: another tree
		F, F, F, F, F, F, T, // padding
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("packed mask = %v, want %v", got, want)
	}
}
