package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// maxSmallCrosses is simplego's limit (16 blocks of 32×32 f32) below which
// a DotGeneral takes its direct "small" path; above it the "large" path
// pads the rows to 32 and re-blocks the whole weight matrix on every call.
const maxSmallCrosses = 16 * 32 * 32

// DecodeLogits implements Model. With a chunkable head it computes the
// logits of a few decode rows as a batched matmul over vocabulary chunks,
// so that each chunk stays on simplego's direct path: with B < 32 rows the
// plain [B, H] × [V, H]ᵀ would take the padded large path (at B = 1, 32×
// the arithmetic plus a copy of the whole LM head per token). The values
// are the same dot products; only the backend's kernel choice changes. It
// is Logits otherwise: no chunkable head, an adapter targeting the head,
// B ≥ 32, no suitable divisor of V, or a backend other than simplego ("go"):
// XLA compiles the plain matmul well and the chunked form badly (on XLA CPU
// it made a decode step of Qwen2.5-0.5B's head 36 ms per row instead of
// ~1 ms).
//
//	hidden [B, H] → [B, V]
func (d *decoder) DecodeLogits(ctx *context.Context, hidden *Node) *Node {
	name := d.chunkedHead
	if name == "" {
		return d.Logits(ctx, hidden)
	}
	g := hidden.Graph()
	b, h := hidden.Shape().Dim(0), hidden.Shape().Dim(1)
	v := d.cfg.VocabSize
	c := vocabChunks(b, v)
	if b >= 32 || c <= 1 || adapterVar(ctx, g, name, "A") != nil || g.Backend().String() != "go" {
		return d.Logits(ctx, hidden)
	}
	w := Reshape(Param(ctx, g, name), c, v/c, h)                    // [C, V/C, H]
	x := BroadcastToDims(Reshape(hidden, 1, b, h), c, b, h)         // [C, B, H]
	out := DotGeneral(x, []int{2}, []int{0}, w, []int{2}, []int{0}) // [C, B, V/C]
	return Reshape(TransposeAllDims(out, 1, 0, 2), b, v)
}

// vocabChunks is the smallest divisor c of v with b·v/c ≤ maxSmallCrosses
// (at most 4096 chunks), or 0.
func vocabChunks(b, v int) int {
	for c := 1; c <= 4096 && c <= v; c++ {
		if v%c == 0 && b*(v/c) <= maxSmallCrosses {
			return c
		}
	}
	return 0
}
