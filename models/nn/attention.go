package nn

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// AttentionMask builds the boolean mask of which keys each query may see:
// causal (key position ≤ query position), within a sliding window when
// window > 0 (query − key < window, Mistral/HF semantics), and only valid
// keys when keyValid is not nil (left padding, or unused KV-cache slots).
//
//	qPos [B, T] int32, kPos [B, S] int32, keyValid [B, S] bool or nil → [B, T, S] bool
func AttentionMask(qPos, kPos, keyValid *Node, window int) *Node {
	b, t, s := qPos.Shape().Dim(0), qPos.Shape().Dim(1), kPos.Shape().Dim(1)
	q := BroadcastToDims(Reshape(qPos, b, t, 1), b, t, s)
	k := BroadcastToDims(Reshape(kPos, b, 1, s), b, t, s)
	mask := LessOrEqual(k, q)
	if window > 0 {
		mask = LogicalAnd(mask, LessThan(Sub(q, k), Scalar(q.Graph(), q.DType(), window)))
	}
	if keyValid != nil {
		mask = LogicalAnd(mask, BroadcastToDims(Reshape(keyValid, b, 1, s), b, t, s))
	}
	return mask
}

// PackedMask is the part of a packed row's mask that positions do not
// give. A packed row lays out a forest of prefix-tree nodes in preorder
// (engine/plan/pack.go); each token carries its node's preorder number and the
// number just past its node's last descendant in the row. A query sees a
// key only when the key's node is the query's node or one of its
// ancestors: node_k ≤ node_q < end_k. Padding is node 0 with end 1, so it
// sees only padding and real nodes (numbered from 1) never see it. AND the
// result with AttentionMask(positions, positions, nil, window) for
// causality and the sliding window, which follow the tokens' positions.
//
//	node, end [B, T] int32 → [B, T, T] bool
func PackedMask(node, end *Node) *Node { return packedVisible(node, node, end) }

// packedVisible is PackedMask for the queries' nodes over the keys' nodes
// and ends (a chunk of a row's queries over its first keys).
//
//	qNode [B, T], kNode, kEnd [B, S] int32 → [B, T, S] bool
func packedVisible(qNode, kNode, kEnd *Node) *Node {
	b, t, s := qNode.Shape().Dim(0), qNode.Shape().Dim(1), kNode.Shape().Dim(1)
	q := BroadcastToDims(Reshape(qNode, b, t, 1), b, t, s)
	k := func(x *Node) *Node { return BroadcastToDims(Reshape(x, b, 1, s), b, t, s) }
	return LogicalAnd(LessOrEqual(k(kNode), q), LessThan(q, k(kEnd)))
}

// AttentionOptions are the per-layer settings of Attention.
type AttentionOptions struct {
	// Scale multiplies the scores q·kᵀ; 0 means 1/√D.
	Scale float64
	// SoftCap, when not 0, caps the scaled scores at ±SoftCap with
	// SoftCap·tanh(scores/SoftCap) (Gemma 2's attn_logit_softcapping).
	SoftCap float64
	// Window is the sliding window in tokens (0: full causal attention).
	// Attention itself reads only the mask: callers build it with
	// AttentionMask(…, Window).
	Window int
	// Causal promises that the mask never shows a query a key at a later
	// column: self-attention over a row in order (a forward pass, a
	// packed row in preorder, a prefill). Attention then gives the query
	// chunk [t0, t1) only the keys [0, t1) — the others are masked for
	// every query in it, and masked keys add exact zeros — and splits long
	// rows into chunks of causalChunk, so about half of a long row's scores
	// are never computed. Same bits (nn tests).
	Causal bool
	// Past is the number of leading keys that are a cached prefix of every
	// query's row (packed rows after a cached few-shot prefix): with
	// Causal, query column t then sees no key past column Past+t, and the
	// query chunk [t0, t1) gets the keys [0, Past+t1).
	Past int
}

// AttentionChunkBytes bounds the float32 scores [B, K, Tc, G, S] of one
// query chunk (B·N·Tc·S·4 bytes): Attention splits the T queries into
// chunks of Tc rows (a multiple of 8) so that it never forms [B, N, T, S]
// scores for long rows — 8 rows × 14 heads × 2048² would be 1.9 GB per
// intermediate, ×3 live on the pure-Go backend. A query's scores, softmax
// and probs·V read only its own row and every key, so a chunked query gets
// the bits of an unchunked one (nn_test.go).
var AttentionChunkBytes = 32 << 20

// AttentionMaxChunks bounds the query chunks of one Attention call: rows
// so long that AttentionChunkBytes would give more chunks get chunks of
// ⌈T/AttentionMaxChunks⌉ rows (a multiple of 8) instead, so a 32 k-token
// prefill builds 256 chunks per layer, not 2048 (graph size and per-op
// overhead), at 235 MB of scores per chunk for the 0.5B shape.
var AttentionMaxChunks = 256

// Attention is scaled dot-product attention with grouped-query heads, taking
// K and V explicitly (so a KV cache can supply them) and never repeating
// them per query head: q is viewed as [B, T, K, G, D] and contracted against
// each KV head. Scores (scaled, then soft-capped) and softmax are in
// float32; masked keys get −∞, so they contribute exact zeros (padding never
// changes the result bits). Long query runs are computed in chunks of
// queryChunk rows (see AttentionChunkBytes), each with its own slice of
// the mask, built only then (Mask).
//
//	q [B, T, N, D], k, v [B, S, K, D], mask → [B, T, S] bool → [B, T, N·D]
func Attention(q, k, v *Node, mask Mask, o AttentionOptions) *Node {
	b, t, n, d := q.Shape().Dim(0), q.Shape().Dim(1), q.Shape().Dim(2), q.Shape().Dim(3)
	s, kv := k.Shape().Dim(1), k.Shape().Dim(2)
	if n%kv != 0 || k.Shape().Dim(3) != d || !v.Shape().Equal(k.Shape()) {
		panicf("Attention: q %s incompatible with k %s / v %s", q.Shape(), k.Shape(), v.Shape())
	}
	tc := chunkRows(b, n, t, s)
	causal := o.Causal && s == t+o.Past
	if causal {
		tc = min(tc, causalChunk(t))
	}
	if tc >= t {
		return attend(q, k, v, mask(0, t, s), o)
	}
	// The last chunk is built (and on goeval's backend run) first: with
	// causal key ranges it is the largest, and the smaller chunks after it
	// reuse its buffers instead of each leaving one of its own size.
	outs := make([]*Node, (t+tc-1)/tc)
	for i := len(outs) - 1; i >= 0; i-- {
		t0, t1 := i*tc, min((i+1)*tc, t)
		rows := AxisRange(t0, t1)
		kc, vc, sc := k, v, s
		if causal && o.Past+t1 < s { // keys past the chunk's last query
			sc = o.Past + t1
			keys := AxisRange(0, sc)
			kc, vc = Slice(k, AxisRange(), keys), Slice(v, AxisRange(), keys)
		}
		outs[i] = attend(Slice(q, AxisRange(), rows), kc, vc, mask(t0, t1, sc), o)
	}
	return Concatenate(outs, 1)
}

// chunkRows is queryChunk raised, for rows so long that it would give
// more than AttentionMaxChunks chunks, to ⌈t/AttentionMaxChunks⌉ rounded
// up to a multiple of 8.
func chunkRows(b, n, t, s int) int {
	tc := queryChunk(b, n, t, s)
	if tc < t && (t+tc-1)/tc > AttentionMaxChunks {
		tc = ((t+AttentionMaxChunks-1)/AttentionMaxChunks + 7) / 8 * 8
	}
	return tc
}

// causalChunk is the query chunk of causal attention over t columns: t
// below 256 (one chunk: splitting saves little), else about t/8 rounded
// up to a multiple of 8, at least 128 — 2 to 8 chunks, which compute
// 56–75 % of the scores.
func causalChunk(t int) int {
	if t < 256 {
		return t
	}
	return max(128, (t/8+7)/8*8)
}

// queryChunk is the number of query rows per chunk: the largest multiple
// of 8 (at least 8) whose scores B·N·Tc·S·4 fit AttentionChunkBytes, or t
// when all rows fit.
func queryChunk(b, n, t, s int) int {
	tc := AttentionChunkBytes / (b * n * s * 4) / 8 * 8
	if tc >= t {
		return t
	}
	return max(tc, 8)
}

// attend is Attention on one run of queries.
//
//	q [B, T, N, D], k, v [B, S, K, D], mask [B, T, S] bool → [B, T, N·D]
func attend(q, k, v, mask *Node, o AttentionOptions) *Node {
	b, t, n, d := q.Shape().Dim(0), q.Shape().Dim(1), q.Shape().Dim(2), q.Shape().Dim(3)
	kv := k.Shape().Dim(2)
	q5 := Reshape(q, b, t, kv, n/kv, d)
	// scores [B, K, T, G, S]: batch (B, K), contract D.
	scores := DotGeneral(q5, []int{4}, []int{0, 2}, k, []int{3}, []int{0, 2})
	probs := softmax(scores, mask, d, o)
	// out [B, K, T, G, D]: batch (B, K), contract S.
	out := DotGeneral(probs, []int{4}, []int{0, 1}, v, []int{1}, []int{0, 2})
	out = TransposeAllDims(out, 0, 2, 1, 3, 4) // [B, T, K, G, D]
	return Reshape(out, b, t, n*d)
}

// AttentionCached is Attention over a KV cache stored head-major, k and v
// [B, K, S, D]: every (row, KV head) is one contiguous [S, D] matrix, the
// layout XLA's batched products read as they are — with [B, S, K, D] it
// copied the whole cache twice per layer and decode step (a transpose to
// [B, K, D, S] for the scores and one to [B, K, S, D] for the values).
// The cache is the scores' left operand ([batch, S, D] contracting D, the
// queries are the small side), so no operand needs a copy. The same dot
// products and softmax as Attention, chunked the same way.
//
//	q [B, T, N, D], k, v [B, K, S, D], mask → [B, T, S] bool → [B, T, N·D]
func AttentionCached(q, k, v *Node, mask Mask, o AttentionOptions) *Node {
	b, t, n, d := q.Shape().Dim(0), q.Shape().Dim(1), q.Shape().Dim(2), q.Shape().Dim(3)
	kv, s := k.Shape().Dim(1), k.Shape().Dim(2)
	if n%kv != 0 || k.Shape().Dim(3) != d || !v.Shape().Equal(k.Shape()) {
		panicf("AttentionCached: q %s incompatible with k %s / v %s", q.Shape(), k.Shape(), v.Shape())
	}
	tc := chunkRows(b, n, t, s)
	if tc >= t {
		return attendCached(q, k, v, mask(0, t, s), o)
	}
	var outs []*Node
	for t0 := 0; t0 < t; t0 += tc {
		t1 := min(t0+tc, t)
		outs = append(outs, attendCached(Slice(q, AxisRange(), AxisRange(t0, t1)), k, v, mask(t0, t1, s), o))
	}
	return Concatenate(outs, 1)
}

// attendCached is AttentionCached on one run of queries.
//
//	q [B, T, N, D], k, v [B, K, S, D], mask [B, T, S] bool → [B, T, N·D]
func attendCached(q, k, v, mask *Node, o AttentionOptions) *Node {
	b, t, n, d := q.Shape().Dim(0), q.Shape().Dim(1), q.Shape().Dim(2), q.Shape().Dim(3)
	kv := k.Shape().Dim(1)
	q5 := Reshape(q, b, t, kv, n/kv, d)
	// [B, K, S, T, G]: batch (B, K), contract D, the cache on the left.
	scores := DotGeneral(k, []int{3}, []int{0, 1}, q5, []int{4}, []int{0, 2})
	scores = TransposeAllDims(scores, 0, 1, 3, 4, 2) // [B, K, T, G, S]
	probs := softmax(scores, mask, d, o)
	// out [B, K, T, G, D]: batch (B, K), contract S.
	out := DotGeneral(probs, []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
	out = TransposeAllDims(out, 0, 2, 1, 3, 4) // [B, T, K, G, D]
	return Reshape(out, b, t, n*d)
}

// softmax turns raw scores into attention weights in the scores' dtype:
// scaled (1/√d unless o.Scale), soft-capped, masked keys −∞, softmax over
// S in float32.
//
//	scores [B, K, T, G, S], mask [B, T, S] bool → [B, K, T, G, S]
func softmax(scores, mask *Node, d int, o AttentionOptions) *Node {
	dims := scores.Shape().Dimensions
	b, kv, t, g, s := dims[0], dims[1], dims[2], dims[3], dims[4]
	scale := o.Scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(d))
	}
	dtype := scores.DType()
	x := SoftCap(MulScalar(ConvertDType(scores, dtypes.Float32), scale), o.SoftCap)
	m := BroadcastToDims(Reshape(mask, b, 1, t, 1, s), b, kv, t, g, s)
	x = Where(m, x, Infinity(scores.Graph(), dtypes.Float32, -1)) // a scalar: the backend broadcasts it
	maxS := ReduceAndKeep(x, ReduceMax, -1)
	e := Exp(Sub(x, maxS))
	probs := Div(e, ReduceAndKeep(e, ReduceSum, -1))
	return ConvertDType(probs, dtype)
}

// SoftCap is cap·tanh(x/cap); cap 0 leaves x as it is.
func SoftCap(x *Node, c float64) *Node {
	if c == 0 {
		return x
	}
	return MulScalar(Tanh(MulScalar(x, 1/c)), c)
}
