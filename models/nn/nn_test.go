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

// TestPackedMask: one row with segment 1 = shared token + branches 1 and 2,
// segment 2 = one token, and a padding token (segment 0): branches see the
// shared prefix and themselves only, segments never see each other.
func TestPackedMask(t *testing.T) {
	backend, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	exec, err := NewExec(backend, func(seg, br *Node) *Node { return PackedMask(seg, br) })
	if err != nil {
		t.Fatal(err)
	}
	//          shared b1  b2  b2  seg2 pad
	seg := [][]int32{{1, 1, 1, 1, 2, 0}}
	br := [][]int32{{0, 1, 2, 2, 0, 0}}
	out, err := exec.Exec(seg, br)
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[bool](out[0])
	T, F := true, false
	want := []bool{
		T, F, F, F, F, F, // shared: itself only (branch 0 sees branch 0)
		T, T, F, F, F, F, // branch 1: shared + itself
		T, F, T, T, F, F, // branch 2: shared + branch 2 (causality is AttentionMask's)
		T, F, T, T, F, F,
		F, F, F, F, T, F, // segment 2
		F, F, F, F, F, T, // padding: segment 0
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("packed mask = %v, want %v", got, want)
	}
}
