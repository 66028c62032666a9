package models

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/nn"
)

// LongRoPE (Phi-3-128k, Phi-3.5, Phi-4-mini: rope_type "longrope", or
// "su" before it), as transformers 5.23 computes it. With theta, rot
// rotated dims and original = original_max_position_embeddings (Phi-3's
// top-level key first, then rope_parameters', else
// max_position_embeddings):
//
//	inv_freq_i = 1 / (ext_i · theta^(2i/rot)) in float32, ext = short_factor
//	  for a sequence of at most original tokens, long_factor beyond;
//	cos and sin × attention_factor (default √(1 + ln f / ln original) with
//	  f = factor, or max_position_embeddings / original; 1 when f ≤ 1).
//
// A sequence's length is its last position + 1 (transformers: max(position_ids) + 1),
// so every token of a sequence longer than original takes the long
// factors, its first ones too. Rows of packed documents must not mix a
// long document with others (engine/plan's Options.MaxPackedInput keeps
// long ones unpacked), and unpacked rows give their lengths
// (Inputs.RowLen). A chunk of a long row (Inputs.Row) is no sequence of
// its own: its Inputs.RowLen is the whole row's length, recorded on its
// graph (setRopeLen) for every layer's rotary embedding, so each chunk
// takes the factors the row's one-pass computation takes, not those of
// its own last position. A decode step past original rotates its own token with
// the long factors but keeps the cache's keys as they were written, where
// transformers' generate() recomputes the whole cache once when crossing.

// longRope is the long-sequence half of a rotary embedding.
type longRope struct {
	invFreq  []float64 // long_factor's inverse frequencies [rot/2]
	original int       // longer sequences take invFreq
	scale    float64   // attention_factor, on cos and sin (either set)
}

// longRopeKeys are the longrope fields of a rope_scaling object.
type longRopeKeys struct {
	ShortFactor     []float64 `json:"short_factor"`
	LongFactor      []float64 `json:"long_factor"`
	AttentionFactor *float64  `json:"attention_factor"`
}

// LongRopeLength is, for a model whose layers use LongRoPE, the sequence
// length (original_max_position_embeddings) beyond which a sequence's
// tokens take the long factors; 0 for other models (and configs that fail
// their checks). The engine keeps longer documents out of packed rows.
func (c *Config) LongRopeLength() int {
	r, err := c.ropeLayer("")
	if err != nil || r.long == nil {
		return 0
	}
	return r.long.original
}

// isLongRope reports whether kind is LongRoPE's.
func isLongRope(kind string) bool { return kind == "longrope" || kind == "su" }

// longRopeLayer is ropeLayer for a LongRoPE scaling object p with theta
// and rot rotated dims.
func (c *Config) longRopeLayer(p *ropeParams, theta float64, rot int) (rotary, error) {
	k := p.longRopeKeys
	if len(k.ShortFactor) != rot/2 || len(k.LongFactor) != rot/2 {
		return rotary{}, errs.BadInputf("%s: longrope short_factor and long_factor need %d entries each (rotary dims / 2; got %d, %d)",
			c.Path, rot/2, len(k.ShortFactor), len(k.LongFactor))
	}
	original := float64(c.MaxPositionEmbeddings)
	if v, ok := c.Raw["original_max_position_embeddings"].(float64); ok {
		original = v
	} else if p.OriginalMaxPositionEmbeddings > 0 {
		original = p.OriginalMaxPositionEmbeddings
	}
	if !(original >= 1) || original != math.Trunc(original) || original > math.MaxInt32 {
		return rotary{}, errs.BadInputf("%s: longrope needs original_max_position_embeddings to be a positive integer (got %g)", c.Path, original)
	}
	f := p.Factor
	if f == 0 {
		f = float64(c.MaxPositionEmbeddings) / original
	}
	scale := 1.0
	if k.AttentionFactor != nil {
		scale = *k.AttentionFactor
	} else if f > 1 {
		scale = math.Sqrt(1 + math.Log(f)/math.Log(original))
	}
	short, long := longInvFreq(theta, rot, k.ShortFactor), longInvFreq(theta, rot, k.LongFactor)
	for _, v := range append(append([]float64(nil), short...), long...) {
		if !(v > 0) || math.IsInf(v, 0) {
			return rotary{}, errs.BadInputf("%s: longrope factors must be positive and finite", c.Path)
		}
	}
	return rotary{invFreq: short, rot: rot, long: &longRope{invFreq: long, original: int(original), scale: scale}}, nil
}

// longInvFreq is 1 / (ext_i · theta^(2i/rot)), each step in float32 as
// transformers computes it.
func longInvFreq(theta float64, rot int, ext []float64) []float64 {
	inv := make([]float64, rot/2)
	for i := range inv {
		e := float32(2*i) / float32(rot)
		pow := float32(math.Pow(theta, float64(e)))
		inv[i] = float64(1 / (float32(ext[i]) * pow))
	}
	return inv
}

// ropeLenParam is the graph parameter (root scope) holding the length of
// the sequence each row of a chunk belongs to, [B] int32, by which
// LongRoPE picks its factors (setRopeLen; unset: each row's last
// position + 1).
const ropeLenParam = "goeval_rope_len"

// setRopeLen records on g that row b's tokens belong to a sequence of
// length[b] tokens, for LongRoPE's choice of factors (applyLong).
func setRopeLen(ctx *context.Context, g *Graph, length *Node) {
	ctx.InAbsPath("/").SetGraphParam(g, ropeLenParam, length)
}

// ropeLen is the sequence lengths setRopeLen recorded on g, or nil.
func ropeLen(ctx *context.Context, g *Graph) *Node {
	return context.GetGraphParamOr[*Node](ctx.InAbsPath("/"), g, ropeLenParam, nil)
}

// applyLong rotates x by its positions with the short or long factors,
// per row by the row's sequence length (length [B]; nil: the row's last
// position + 1), and scales the rotated dims by the attention factor.
//
//	x [B, T, N, D], positions [B, T] int32, length [B] or nil → [B, T, N, D]
func (r rotary) applyLong(x, positions, length *Node) *Node {
	b, t, n, d := x.Shape().Dim(0), x.Shape().Dim(1), x.Shape().Dim(2), x.Shape().Dim(3)
	short := nn.ApplyPartialRoPE(x, positions, r.invFreq, r.rot)
	long := nn.ApplyPartialRoPE(x, positions, r.long.invFreq, r.rot)
	if length == nil {
		length = AddScalar(ReduceMax(positions, -1), 1) // [B]
	}
	isLong := GreaterThan(length, Scalar(x.Graph(), dtypes.Int32, r.long.original)) // [B]
	y := Where(BroadcastToDims(Reshape(isLong, b, 1, 1, 1), b, t, n, d), long, short)
	if r.long.scale == 1 {
		return y
	}
	scale := make([]float32, d) // attention_factor on the rotated dims only
	for i := range scale {
		scale[i] = 1
		if i < r.rot {
			scale[i] = float32(r.long.scale)
		}
	}
	return Mul(y, BroadcastToDims(ConvertDType(Reshape(Const(x.Graph(), scale), 1, 1, 1, d), x.DType()), b, t, n, d))
}
