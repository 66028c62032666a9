package engine

import (
	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/models"
)

// The engine's side of planning a scoring call (package plan): the
// options its backend and model imply.

// packAlign is the alignment of nodes in a packed row on GoMLX's simplego
// backend: the group size of its dot-product kernels. Other backends pack
// with alignment 1 (no repeated ids, no gaps): goeval's gocpu is
// bit-identical that way, XLA's sums are not bit-identical to the
// unpacked rows' anyway.
const packAlign = 8

// packRowLengths are the packed row capacities (nil: plan's defaults);
// tests shorten them.
var packRowLengths []int

// planOptions are the options of a scoring call's plan (plan.New).
func (e *Engine) planOptions() plan.Options {
	return plan.Options{BatchSize: e.batch, MaxLen: e.maxLen, Shapes: e.shapeRule(), Pack: e.opts.packing(),
		Align: e.packAlign(), AttnKeys: attnKeys(e.cfg), RowLengths: packRowLengths, Prefixes: e.prefixRule()}
}

// attnKeys is plan.Dims.AttnKeys for the model's config.
func attnKeys(c *models.Config) int {
	return plan.Dims{Hidden: c.HiddenSize, Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads,
		HeadDim: c.HeadDim, Intermediate: c.IntermediateSize}.AttnKeys()
}

// packAlign is the node alignment for the engine's backend: packAlign on
// GoMLX's simplego ("go", whose blocked matmul needs it for bit-identical
// packed scores), 1 elsewhere: goeval's gocpu backend is bit-identical
// unaligned (every product is one FMA chain per element, internal/gemm).
func (e *Engine) packAlign() int {
	if e.backend.String() == "go" {
		return packAlign
	}
	return 1
}
