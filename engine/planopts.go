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
		Align: e.packAlign(), AttnKeys: attnKeys(e.cfg), RowLengths: packRowLengths, Prefixes: e.prefixRule(),
		Uniform: e.uniformSlack(), MaxPackedInput: e.cfg.LongRopeLength()}
}

// uniformSlack is plan.Options.Uniform: where shapes are fixed as on a
// GPU (fixedShapes), a call's packed passes take one shape and its
// unpacked passes one when that adds at most a quarter of the padded
// tokens. A scoring shape there costs a compile of seconds and a padded
// token next to nothing: with the synthetic documents of hellaswag +
// arc_challenge and 5-shot mmlu_stem (Qwen3's tokenizer), one shape per
// kind compiled 2 shapes (scoring and LM head) instead of 3–4 and ran 5–8 % more padded
// tokens at 200 documents a task, 13–20 % more at 40 (mmlu_stem: 4 a
// subtask). On XLA's CPU device, where a padded token costs CPU time and a
// compile about a second, passes keep their own buckets.
func (e *Engine) uniformSlack() float64 {
	if e.fixedShapes() {
		return 0.25
	}
	return 0
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
