package nn

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestMasksByChunk: every Mask built a chunk at a time (queries [t0, t1)
// over keys [0, s)) is that slice of the whole mask the decoder built
// before Mask: AttentionMask with padding and a window, packed rows'
// AttentionMask AND PackedMask, and a cached prefix's mask beside them.
func TestMasksByChunk(t *testing.T) {
	backend, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	// One packed row (a tree 1 → {2 → 3, 4}, a tree 5, padding) and a
	// row of plain positions; a past of 3 positions per row.
	pos := [][]int32{{0, 1, 2, 2, 3, 0, 0}, {0, 1, 2, 3, 4, 5, 6}}
	node := [][]int32{{1, 2, 3, 4, 4, 5, 0}, {1, 1, 1, 1, 1, 1, 1}}
	end := [][]int32{{5, 4, 4, 5, 5, 6, 1}, {2, 2, 2, 2, 2, 2, 2}}
	valid := [][]bool{{true, true, true, true, true, true, false}, {true, true, true, true, false, false, false}}
	pastPos := [][]int32{{0, 1, 2}, {0, 1, 2}}
	const p = 3
	for _, w := range []int{0, 2} {
		for _, c := range [][3]int{{0, 7, 7}, {0, 3, 3}, {2, 5, 5}, {4, 7, 7}, {3, 6, 7}} {
			t0, t1, s := c[0], c[1], c[2]
			name := fmt.Sprintf("window %d, queries [%d, %d), keys %d", w, t0, t1, s)
			out := MustExecOnceN(backend, func(pos, node, end, valid, pastPos *Node) []*Node {
				whole := AttentionMask(pos, pos, valid, w)
				packed := LogicalAnd(AttentionMask(pos, pos, nil, w), PackedMask(node, end))
				past := Concatenate([]*Node{AttentionMask(pos, pastPos, nil, w), packed}, 2)
				pm := PastMask(PositionMask(pos, pastPos, nil, w), PackedPositionMask(pos, node, end, w), p)
				return []*Node{
					PositionMask(pos, pos, valid, w)(t0, t1, s), MaskOf(whole)(t0, t1, s),
					PackedPositionMask(pos, node, end, w)(t0, t1, s), MaskOf(packed)(t0, t1, s),
					pm(t0, t1, p+s), MaskOf(past)(t0, t1, p+s),
					pm(t0, t1, p-1), MaskOf(past)(t0, t1, p-1),
				}
			}, pos, node, end, valid, pastPos)
			for i := 0; i < len(out); i += 2 {
				got, want := tensors.MustCopyFlatData[bool](out[i]), tensors.MustCopyFlatData[bool](out[i+1])
				if !reflect.DeepEqual(got, want) || !out[i].Shape().Equal(out[i+1].Shape()) {
					t.Errorf("%s: mask %d by chunk %s %v, sliced %s %v", name, i/2, out[i].Shape(), got, out[i+1].Shape(), want)
				}
			}
		}
	}
}

// TestChunkRows: rows too long for AttentionMaxChunks chunks of
// queryChunk rows get ⌈T/AttentionMaxChunks⌉ rows (a multiple of 8);
// shorter ones keep queryChunk's.
func TestChunkRows(t *testing.T) {
	for _, c := range []struct{ b, n, t, s, want int }{
		{1, 14, 2048, 2048, 288},   // queryChunk's
		{1, 14, 8192, 8192, 72},    // 114 chunks of queryChunk's 72
		{1, 14, 32768, 32768, 128}, // queryChunk's 16 would be 2048 chunks
		{1, 14, 32000, 32000, 128}, // ⌈125⌉ → 128
		{1, 14, 100, 100, 100},     // one chunk
	} {
		if got := chunkRows(c.b, c.n, c.t, c.s); got != c.want {
			t.Errorf("chunkRows(B=%d N=%d T=%d S=%d) = %d, want %d", c.b, c.n, c.t, c.s, got, c.want)
		}
	}
}
