package nn

import (
	"github.com/goeval/goeval/internal/gocpu"
	"github.com/gomlx/gomlx/backends"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestQueryChunk pins the chunk sizes: multiples of 8, scores within
// AttentionChunkBytes, no chunking when everything fits.
func TestQueryChunk(t *testing.T) {
	for _, c := range []struct{ b, n, t, s, want int }{
		{1, 14, 2048, 2048, 288}, // 32 MiB / (14·2048·4) = 292 → 288
		{2, 14, 2048, 2048, 144}, // 146 → 144
		{8, 14, 2048, 2048, 32},  // 36 → 32
		{1, 4, 100, 100, 100},    // fits: one chunk
		{64, 64, 4096, 4096, 8},  // never below 8
	} {
		got := queryChunk(c.b, c.n, c.t, c.s)
		if got != c.want {
			t.Errorf("queryChunk(B=%d N=%d T=%d S=%d) = %d, want %d", c.b, c.n, c.t, c.s, got, c.want)
		}
		if got < c.t && (got%8 != 0 || (got > 8 && c.b*c.n*got*c.s*4 > AttentionChunkBytes)) {
			t.Errorf("queryChunk(B=%d N=%d T=%d S=%d) = %d: not a multiple of 8 within the budget", c.b, c.n, c.t, c.s, got)
		}
	}
}

// TestAttentionChunkedExact: attention over query chunks (a budget small
// enough for chunks of 8 and 16 rows, the last one short) gives the bits
// of one unchunked pass, with padding keys masked and grouped-query heads.
func TestAttentionChunkedExact(t *testing.T) {
	// ops_sequential: simplego's parallel ops deadlock its worker pool when
	// several independent matmuls (the chunks) are ready at once (see
	// engine.safeGoSpec); the engine runs it sequentially too.
	backend, err := simplego.New("ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	const b, tq, n, kv, d = 2, 43, 4, 2, 16
	rng := rand.New(rand.NewPCG(1, 2))
	randT := func(dims ...int) *tensors.Tensor {
		x := make([]float32, b*tq*dims[0]*dims[1])
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return tensors.FromFlatDataAndDimensions(x, b, tq, dims[0], dims[1])
	}
	q, k, v := randT(n, d), randT(kv, d), randT(kv, d)
	valid := make([]bool, b*tq)
	for i := range valid {
		valid[i] = i%tq < tq-5 || i < tq // row 1 has 5 padding keys
	}
	run := func(budget int) []float32 {
		saved := AttentionChunkBytes
		AttentionChunkBytes = budget
		defer func() { AttentionChunkBytes = saved }()
		out := MustExecOnce(backend, func(q, k, v, valid *Node) *Node {
			pos := Iota(q.Graph(), shapes.Make(dtypes.Int32, b, tq), 1)
			return Attention(q, k, v, MaskOf(AttentionMask(pos, pos, valid, 0)), AttentionOptions{})
		}, q, k, v, tensors.FromFlatDataAndDimensions(valid, b, tq))
		return tensors.MustCopyFlatData[float32](out)
	}
	whole := run(1 << 30)
	for _, rows := range []int{8, 16} {
		got := run(b * n * rows * tq * 4)
		for i := range whole {
			if math.Float32bits(got[i]) != math.Float32bits(whole[i]) {
				t.Fatalf("chunks of %d queries: output %d = %v, unchunked %v", rows, i, got[i], whole[i])
			}
		}
	}
}

// TestAttentionCausalExact: causal attention over a row longer than one
// causal chunk (query chunks that see only the keys up to their last
// column) gives the bits of one unchunked pass over every key, on
// goeval's pure-Go backend and on simplego, with padding keys masked.
func TestAttentionCausalExact(t *testing.T) {
	const b, tq, n, kv, d = 2, 300, 4, 2, 16
	if causalChunk(tq) >= tq {
		t.Fatalf("causalChunk(%d) = %d: the test needs several chunks", tq, causalChunk(tq))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	randF := func(heads int) []float32 {
		x := make([]float32, b*tq*heads*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	qf, kf, vf := randF(n), randF(kv), randF(kv)
	valid := make([]bool, b*tq)
	for i := range valid {
		valid[i] = i%tq < tq-7 || i < tq // row 1 has 7 padding keys
	}
	gocpuB, err := gocpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer gocpuB.Finalize()
	simple, err := simplego.New("ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	defer simple.Finalize()
	for _, backend := range []backends.Backend{gocpuB, simple} {
		run := func(causal bool) []float32 {
			out := MustExecOnce(backend, func(q, k, v, valid *Node) *Node {
				pos := Iota(q.Graph(), shapes.Make(dtypes.Int32, b, tq), 1)
				if !causal { // one pass over the whole mask, built at once
					return Attention(q, k, v, MaskOf(AttentionMask(pos, pos, valid, 0)), AttentionOptions{})
				}
				return Attention(q, k, v, PositionMask(pos, pos, valid, 0), AttentionOptions{Causal: true})
			}, tensors.FromFlatDataAndDimensions(qf, b, tq, n, d), tensors.FromFlatDataAndDimensions(kf, b, tq, kv, d),
				tensors.FromFlatDataAndDimensions(vf, b, tq, kv, d), tensors.FromFlatDataAndDimensions(valid, b, tq))
			return tensors.MustCopyFlatData[float32](out)
		}
		whole, chunked := run(false), run(true)
		for i := range whole {
			if math.Float32bits(chunked[i]) != math.Float32bits(whole[i]) {
				t.Fatalf("%s: causal chunks: output %d = %v, one pass %v", backend.Name(), i, chunked[i], whole[i])
			}
		}
	}
}
