package gocpu

import (
	"slices"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// updateGraph compiles cache [2, 3, 4] f32, x [1, 1, 4] f32, pos int32 →
// DynamicUpdateSlice(DynamicUpdateSlice(cache, x, (0, pos, 0)), 2x,
// (1, pos+9, 0)) (the second start clamped to 2) and, with readAfter, the
// sum of the old cache read after the updates (which then cannot be in
// place).
func updateGraph(t *testing.T, b *Backend, readAfter bool) backends.Executable {
	t.Helper()
	must := func(op backends.Op, err error) backends.Op {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	g := b.Builder("update")
	cache := must(g.Parameter("cache", shapes.Make(dtypes.Float32, 2, 3, 4), nil))
	x := must(g.Parameter("x", shapes.Make(dtypes.Float32, 1, 1, 4), nil))
	pos := must(g.Parameter("pos", shapes.Make(dtypes.Int32), nil))
	zero, one := must(g.Constant([]int32{0})), must(g.Constant([]int32{1}))
	zero, one = must(g.Reshape(zero)), must(g.Reshape(one))
	u := must(g.DynamicUpdateSlice(cache, x, []backends.Op{zero, pos, zero}))
	far := must(g.Add(pos, must(g.Reshape(must(g.Constant([]int32{9}))))))
	u = must(g.DynamicUpdateSlice(u, must(g.Add(x, x)), []backends.Op{one, far, zero}))
	outs := []backends.Op{u}
	if readAfter {
		outs = append(outs, must(g.ReduceSum(cache, 0, 1, 2)))
	}
	exe, err := g.Compile(outs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestDynamicUpdateSliceInPlace: a donated cache that the execution owns
// (an earlier output) is updated in its own storage; a borrowed one is
// copied and left alone; a cache read after its update is copied even when
// donated; every way gives the same values.
func TestDynamicUpdateSliceInPlace(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	base := make([]float32, 24)
	for i := range base {
		base[i] = float32(i)
	}
	want := slices.Clone(base)
	copy(want[4:8], []float32{-1, -2, -3, -4})   // row 0, slot 1
	copy(want[20:24], []float32{-2, -4, -6, -8}) // row 1, slot 9+1 clamped to 2
	newIn := func() (*Buffer, *Buffer, *Buffer) {
		c, _ := b.BufferFromFlatData(0, slices.Clone(base), shapes.Make(dtypes.Float32, 2, 3, 4))
		x, _ := b.BufferFromFlatData(0, []float32{-1, -2, -3, -4}, shapes.Make(dtypes.Float32, 1, 1, 4))
		p, _ := b.BufferFromFlatData(0, []int32{1}, shapes.Make(dtypes.Int32))
		return c.(*Buffer), x.(*Buffer), p.(*Buffer)
	}
	run := func(exe backends.Executable, donate bool, in ...*Buffer) []*Buffer {
		t.Helper()
		outs, err := exe.Execute([]backends.Buffer{in[0], in[1], in[2]}, []bool{donate, false, false}, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]*Buffer, len(outs))
		for i, o := range outs {
			got[i] = o.(*Buffer)
		}
		return got
	}
	exe := updateGraph(t, b, false)

	// Borrowed (not donated, or never owned by an execution): a copy.
	for _, donate := range []bool{false, true} {
		c, x, p := newIn()
		out := run(exe, donate, c, x, p)[0]
		if !slices.Equal(out.flat.([]float32), want) || !slices.Equal(c.flat.([]float32), base) {
			t.Fatalf("donate=%v on a caller's buffer: got %v, input now %v", donate, out.flat, c.flat)
		}
	}
	// Owned: an execution's output, donated to the next one.
	c, x, p := newIn()
	owned := run(updateGraph(t, b, false), false, c, x, p)[0] // a pool-backed output
	copy(owned.flat.([]float32), base)
	storage := &owned.flat.([]float32)[0]
	out := run(exe, true, owned, x, p)[0]
	if !slices.Equal(out.flat.([]float32), want) {
		t.Fatalf("in place: got %v, want %v", out.flat, want)
	}
	if &out.flat.([]float32)[0] != storage {
		t.Error("a donated, owned cache was copied instead of updated in place")
	}
	if owned.flat != nil {
		t.Error("the donated input still holds its storage after the execution")
	}
	// Read after the update: never in place.
	exe2 := updateGraph(t, b, true)
	c, x, p = newIn()
	owned = run(updateGraph(t, b, false), false, c, x, p)[0]
	copy(owned.flat.([]float32), base)
	outs := run(exe2, true, owned, x, p)
	if !slices.Equal(outs[0].flat.([]float32), want) || outs[1].flat.([]float32)[0] != 276 {
		t.Fatalf("read after update: got %v and sum %v, want %v and 276", outs[0].flat, outs[1].flat, want)
	}
}
