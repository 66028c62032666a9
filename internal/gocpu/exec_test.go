package gocpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

func randFlat(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestOutputsAreCopies: an output that is an input (or a reshape of one)
// comes back as its own storage, so writing to it leaves the input alone;
// a graph run twice (intermediates from the pool the second time) gives
// the same values.
func TestOutputsAreCopies(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	exec, err := NewExec(b, func(x *Node) (*Node, *Node, *Node) {
		y := Exp(Mul(x, x))
		return x, Reshape(x, 6), Reshape(Add(y, y), 3, 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	in := tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	first, err := exec.Exec(in)
	if err != nil {
		t.Fatal(err)
	}
	tensors.MutableFlatData[float32](first[0], func(f []float32) { f[0] = 100 })
	tensors.MutableFlatData[float32](first[1], func(f []float32) { f[1] = 200 })
	if got := tensors.MustCopyFlatData[float32](in); got[0] != 1 || got[1] != 2 {
		t.Fatalf("writing an output changed the input: %v", got)
	}
	again, err := exec.Exec(in)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := tensors.MustCopyFlatData[float32](first[2]), tensors.MustCopyFlatData[float32](again[2]); !slices.Equal(a, b) {
		t.Fatalf("second run %v, first %v", b, a)
	}
}

// TestRowsIndependent: a row's product with a weight (the swapped path,
// weight as a parameter) or with an activation, and a reduction over a
// row, are bit-identical whatever else is in the batch.
func TestRowsIndependent(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	const k, n = 67, 45
	rng := rand.New(rand.NewPCG(3, 4))
	w := tensors.FromFlatDataAndDimensions(randFlat(rng, n*k), n, k)
	f := func(x, w *Node) *Node {
		h := Einsum("mk,nk->mn", x, w)                        // x·wᵀ, w a parameter: swapped path
		a := Einsum("mk,kn->mn", Tanh(x), Transpose(w, 0, 1)) // activation rhs
		return Add(Add(h, a), ReduceAndKeep(Mul(h, h), ReduceSum, -1))
	}
	exec, err := NewExec(b, f)
	if err != nil {
		t.Fatal(err)
	}
	// 70 rows: the weight is packed per call (packRowsMin); one row: it is
	// read in place as the transposed product's left operand.
	rows := randFlat(rng, 70*k)
	all, err := exec.Exec(tensors.FromFlatDataAndDimensions(rows, 70, k), w)
	if err != nil {
		t.Fatal(err)
	}
	full := tensors.MustCopyFlatData[float32](all[0])
	for _, r := range []int{0, 4, 69} {
		one, err := exec.Exec(tensors.FromFlatDataAndDimensions(slices.Clone(rows[r*k:(r+1)*k]), 1, k), w)
		if err != nil {
			t.Fatal(err)
		}
		if got := tensors.MustCopyFlatData[float32](one[0]); !slices.Equal(got, full[r*n:(r+1)*n]) {
			t.Fatalf("row %d alone differs from row %d of the batch", r, r)
		}
	}
}

// TestUnusedNodesSkipped: a node no output needs is not run (here one
// whose run would be recorded).
func TestUnusedNodesSkipped(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	bld := b.Builder("unused")
	x, _ := bld.Constant([]float32{1, 2, 3}, 3)
	ran := false
	bld.(*Builder).newNode(backends.OpTypeNeg, shapes.Make(dtypes.Float32, 3), func(*runCtx, []*Buffer) (*Buffer, error) {
		ran = true
		return nil, nil
	}, x.(*node))
	y, _ := bld.Neg(x)
	exe, err := bld.Compile([]backends.Op{y}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exe.Execute(nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Fatal("a node no output needs was run")
	}
	if got := out[0].(*Buffer).flat.([]float32); !slices.Equal(got, []float32{-1, -2, -3}) {
		t.Fatalf("Neg = %v", got)
	}
}

// TestFinalizedOutputsReused: an execution output's storage goes back to
// the pool when finalized (the KV cache of the previous decode step), but
// never once its data was handed out (BufferData).
func TestFinalizedOutputsReused(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	bld := b.Builder("reuse")
	x, _ := bld.Parameter("x", shapes.Make(dtypes.Float32, 4096), nil)
	y, _ := bld.Neg(x)
	exe, err := bld.Compile([]backends.Op{y}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := b.BufferFromFlatData(0, make([]float32, 4096), shapes.Make(dtypes.Float32, 4096))
	run := func() *Buffer {
		out, err := exe.Execute([]backends.Buffer{in}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return out[0].(*Buffer)
	}
	first := run()
	storage := &first.flat.([]float32)[0]
	if err := b.BufferFinalize(first); err != nil {
		t.Fatal(err)
	}
	second := run()
	if &second.flat.([]float32)[0] != storage {
		t.Fatal("a finalized output's storage was not reused")
	}
	flat, _ := b.BufferData(second)
	_ = b.BufferFinalize(second)
	if third := run(); &third.flat.([]float32)[0] == &flat.([]float32)[0] {
		t.Fatal("storage handed out by BufferData was reused")
	}
}
