package engine

import (
	"fmt"
	"time"

	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// The LM head runs on Kc slots at a time (score.go): its [Kc, V] f32
// logits, their float64 copy and the exp of the shifted copy take about
// Kc·V·20 bytes, so Kc is the largest power of two in [minHeadRows,
// maxHeadRows] whose f32 logits fit headLogitsBudget:
//
//	V = 32000 → 128 rows, V = 128256 → 64, V = 151936 → 32 (≈ 97 MB of buffers)
//
// Below 32 rows simplego's blocked matmul pads the rows to 32 anyway. Each
// call also re-blocks the whole [V, H] head (545 MB at Qwen2.5-0.5B,
// transient); DecodeLogits' vocabulary chunks would not help: simplego's
// Reshape copies a weight it does not own, so they copy the head too. A
// pass's K slots (a power of two) split into K/Kc calls of one compiled
// shape (on exact shapes, plan/shapes.go, the last chunk may be shorter); chunks
// past the used slots are not run.
var (
	headLogitsBudget         = 32 << 20
	minHeadRows, maxHeadRows = 32, 128
)

// headRows is Kc for a vocabulary of v tokens: the largest power of two in
// [minHeadRows, maxHeadRows] with Kc·v·4 ≤ headLogitsBudget, or minHeadRows.
func headRows(v int) int {
	r := maxHeadRows
	for r > minHeadRows && r*v*4 > headLogitsBudget {
		r /= 2
	}
	return r
}

// runHead runs the LM head over the used slots of pass p, Kc = min(K,
// headRows(V)) at a time, and adds their scores into results.
//
//	h [K, H] (compute dtype) → K/Kc × (log-prob [Kc] f64, miss [Kc] bool,
//	                                    top id [Kc] int32, top log-prob [Kc] f64)
func (e *Engine) runHead(h *tensors.Tensor, p *pass, tokens bool, results []Score) error {
	kc := min(p.K, headRows(e.cfg.VocabSize))
	for from := 0; from < len(p.SlotItem); from += kc {
		n := min(kc, p.K-from) // the last chunk of exact shapes may be shorter
		chunk, err := sliceRows(h, from, n)
		if err != nil {
			return err
		}
		args := []any{chunk, tensors.FromFlatDataAndDimensions(p.Targets[from:from+n], n)}
		if err := e.runHeadChunk(n, args, p, from, tokens, results); err != nil {
			return err
		}
	}
	return nil
}

// sliceRows copies rows [from, from+n) of a [K, H] tensor into a new [n, H]
// tensor of its dtype.
func sliceRows(h *tensors.Tensor, from, n int) (*tensors.Tensor, error) {
	k, hidden := h.Shape().Dim(0), h.Shape().Dim(1)
	chunk := tensors.FromShape(shapes.Make(h.DType(), n, hidden))
	var inner error
	err := h.ConstBytes(func(src []byte) {
		row := len(src) / k
		inner = chunk.MutableBytes(func(dst []byte) { copy(dst, src[from*row:(from+n)*row]) })
	})
	if err == nil {
		err = inner
	}
	if err != nil {
		return nil, fmt.Errorf("slice hidden states %s rows %d+%d: %w", h.Shape(), from, n, err)
	}
	return chunk, nil
}

// runHeadChunk runs the head on one chunk of kc slots starting at slot from.
func (e *Engine) runHeadChunk(kc int, args []any, p *pass, from int, tokens bool, results []Score) error {
	key := headKey(kc)
	exec, err := e.headGraphs().exec(key)
	if err != nil {
		return err
	}
	if err := e.compileOnce(exec, key, args); err != nil {
		return err
	}
	start := time.Now()
	outs, err := exec.Exec(args...)
	if err != nil {
		return fmt.Errorf("run %s: %w", key, err)
	}
	defer func() {
		for _, t := range outs {
			_ = t.FinalizeAll()
		}
	}()
	e.stats.ExecTime += time.Since(start)
	e.stats.HeadCalls++
	e.stats.HeadRows = max(e.stats.HeadRows, kc)
	h := headOut{tensors.MustCopyFlatData[float64](outs[0]), tensors.MustCopyFlatData[bool](outs[1]), nil, nil}
	if tokens {
		h.topID, h.topLP = tensors.MustCopyFlatData[int32](outs[2]), tensors.MustCopyFlatData[float64](outs[3])
	}
	if e.lpRound != nil {
		top := h.topLP // copied above with tokens
		if top == nil {
			top = tensors.MustCopyFlatData[float64](outs[3])
		}
		e.lpRound.apply(&h, top, tensors.MustCopyFlatData[float64](outs[4]))
	}
	collect(h, p, from, tokens, results)
	return nil
}

// headGraphs returns the LM-head graphs (one compiled shape per Kc).
func (e *Engine) headGraphs() *graphExecs {
	if e.execs.head == nil {
		e.execs.head = newGraphExecs(e, "LM head", headGraph(e.model, e.lpRound != nil))
	}
	return e.execs.head
}

// headKey names the LM head's shape for kc slots (Engine.seen, logs).
func headKey(kc int) string { return fmt.Sprintf("LM head Kc=%d", kc) }
