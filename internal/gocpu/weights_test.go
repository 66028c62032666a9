package gocpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestWeightsPackedInPlace: a weight [N, K] that a graph only multiplies is
// packed in its own buffer at the first execution, and its products keep
// the bits of the unpacked paths (the weight read in place for few rows,
// packed per call for many); reading the buffer gives the weight as
// stored; a graph that reads it otherwise unpacks it for good.
func TestWeightsPackedInPlace(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	const k, n = 67, 64 // n: a multiple of every kernel's panel width
	rng := rand.New(rand.NewPCG(5, 6))
	orig := randFlat(rng, n*k)
	newWeight := func() (*Buffer, *tensors.Tensor) { return weightBuffer(t, b, orig, n, k) }
	product, other := weightExecs(t, b)
	run := func(e *Exec, rows []float32, w *tensors.Tensor) []float32 {
		t.Helper()
		out, err := e.Exec(tensors.FromFlatDataAndDimensions(rows, len(rows)/k, k), w)
		if err != nil {
			t.Fatal(err)
		}
		return tensors.MustCopyFlatData[float32](out[0])
	}
	many, one := randFlat(rng, 70*k), randFlat(rng, k) // 70 rows: ≥ packRowsMin
	refBuf, ref := newWeight()
	wantMany, wantOne := run(other, many, ref), run(other, one, ref)
	if PackedWeights(refBuf) != 0 {
		t.Fatal("a weight that is also added was packed in place")
	}

	buf, w := newWeight()
	gotOne := run(product, one, w)
	if PackedWeights(buf) != 1 {
		t.Fatal("a weight only multiplied was not packed in place")
	}
	if !slices.Equal(gotOne, wantOne) || !slices.Equal(run(product, many, w), wantMany) {
		t.Fatal("products with the weight packed in place differ from the unpacked paths")
	}
	stored := make([]float32, n*k)
	if err := b.BufferToFlatData(buf, stored); err != nil || !slices.Equal(stored, orig) {
		t.Fatalf("BufferToFlatData of a packed weight: err %v, equal to the weight %v", err, slices.Equal(stored, orig))
	}
	if PackedWeights(buf) != 1 {
		t.Fatal("BufferToFlatData unpacked the weight")
	}

	// A graph that adds it unpacks it, and it stays unpacked.
	if got := run(other, many, w); !slices.Equal(got, wantMany) {
		t.Fatal("product after unpacking differs")
	}
	if PackedWeights(buf) != 0 {
		t.Fatal("a graph that adds the weight did not unpack it")
	}
	if got := run(product, many, w); !slices.Equal(got, wantMany) || PackedWeights(buf) != 0 {
		t.Fatalf("after unpacking: product equal %v, packed again %v", slices.Equal(got, wantMany), PackedWeights(buf) != 0)
	}

	// BufferData hands out the stored layout.
	buf2, w2 := newWeight()
	run(product, one, w2)
	flat, err := b.BufferData(buf2)
	if err != nil || PackedWeights(buf2) != 0 || !slices.Equal(flat.([]float32), orig) {
		t.Fatalf("BufferData of a packed weight: err %v, still packed %v, equal %v", err, PackedWeights(buf2) != 0, slices.Equal(flat.([]float32), orig))
	}
}

// TestWeightsConcurrent: executions on several goroutines, some only
// multiplying a weight (which packs it) and some also adding it (which
// unpacks it for good), all give the unpacked paths' bits (run it with
// -race: layouts change only under layoutMu).
func TestWeightsConcurrent(t *testing.T) {
	b, err := New("threads=2")
	if err != nil {
		t.Fatal(err)
	}
	const k, n = 40, 96
	rng := rand.New(rand.NewPCG(7, 8))
	orig := randFlat(rng, n*k)
	rows := randFlat(rng, 66*k)
	product, other := weightExecs(t, b)
	for round := range 3 {
		buf, w := weightBuffer(t, b, orig, n, k)
		var want []float32
		results := make([][]float32, 8)
		done := make(chan error, len(results))
		for g := range results {
			e := product
			if g%4 == 3 && round > 0 { // round 0: only products, so the weight stays packed
				e = other
			}
			go func() {
				out, err := e.Exec(tensors.FromFlatDataAndDimensions(slices.Clone(rows), 66, k), w)
				if err == nil {
					results[g] = tensors.MustCopyFlatData[float32](out[0])
				}
				done <- err
			}()
		}
		for range results {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		ref, err := other.Exec(tensors.FromFlatDataAndDimensions(slices.Clone(rows), 66, k), tensors.FromFlatDataAndDimensions(slices.Clone(orig), n, k))
		if err != nil {
			t.Fatal(err)
		}
		want = tensors.MustCopyFlatData[float32](ref[0])
		for g, got := range results {
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, goroutine %d: product differs from the unpacked path", round, g)
			}
		}
		if packed := PackedWeights(buf) == 1; packed != (round == 0) {
			t.Errorf("round %d: packed in place %v after the executions", round, packed)
		}
	}
}

// weightBuffer puts a copy of w, a weight [n, k], in a buffer of b and
// returns it and its tensor.
func weightBuffer(t *testing.T, b *Backend, w []float32, n, k int) (*Buffer, *tensors.Tensor) {
	t.Helper()
	buf, err := b.BufferFromFlatData(0, slices.Clone(w), shapes.Make(dtypes.Float32, n, k))
	if err != nil {
		t.Fatal(err)
	}
	x, err := tensors.FromBuffer(b, buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf.(*Buffer), x
}

// weightExecs are x·wᵀ alone (w only multiplied: packed in place) and
// with w also added to itself (not only multiplied: never packed).
func weightExecs(t *testing.T, b *Backend) (product, other *Exec) {
	t.Helper()
	product, err := NewExec(b, func(x, w *Node) *Node { return Einsum("mk,nk->mn", x, w) })
	if err != nil {
		t.Fatal(err)
	}
	other, err = NewExec(b, func(x, w *Node) (*Node, *Node) { return Einsum("mk,nk->mn", x, w), Add(w, w) })
	if err != nil {
		t.Fatal(err)
	}
	return product, other
}
