package nn

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// Mask builds attention masks one query chunk at a time: Mask(t0, t1, s)
// is the mask of the queries [t0, t1) over the keys [0, s), [B, t1−t0, s]
// bool. Attention calls it once per chunk, so a long row never holds its
// whole [B, T, S] mask (1 GiB of bools at 32 k tokens, and 4 GiB for each
// int32 position grid AttentionMask broadcasts to build it): a chunk's
// mask lives only while its chunk is computed.
type Mask func(t0, t1, s int) *Node

// MaskOf is the Mask of a mask already built, [B, T, S] bool: its slices.
func MaskOf(m *Node) Mask {
	t, s := m.Shape().Dim(1), m.Shape().Dim(2)
	return func(t0, t1, s1 int) *Node {
		if t0 == 0 && t1 == t && s1 == s {
			return m
		}
		return Slice(m, AxisRange(), AxisRange(t0, t1), AxisRange(0, s1))
	}
}

// PositionMask is the Mask of AttentionMask(qPos, kPos, keyValid, window),
// built from the chunk's query positions and the first s keys'.
//
//	qPos [B, T] int32, kPos [B, S] int32, keyValid [B, S] bool or nil
func PositionMask(qPos, kPos, keyValid *Node, window int) Mask {
	return func(t0, t1, s int) *Node {
		kp, kv := firstKeys(kPos, s), keyValid
		if kv != nil {
			kv = firstKeys(kv, s)
		}
		return AttentionMask(queryRows(qPos, t0, t1), kp, kv, window)
	}
}

// PackedPositionMask is the mask of packed rows: AttentionMask(positions,
// positions, nil, window) AND PackedMask(node, end), a chunk at a time.
//
//	positions, node, end [B, T] int32
func PackedPositionMask(positions, node, end *Node, window int) Mask {
	causal := PositionMask(positions, positions, nil, window)
	return func(t0, t1, s int) *Node {
		visible := packedVisible(queryRows(node, t0, t1), firstKeys(node, s), firstKeys(end, s))
		return LogicalAnd(causal(t0, t1, s), visible)
	}
}

// PastMask puts the keys of a cached prefix of p columns before a row's
// own: the chunk's mask over the keys [0, s) is past(t0, t1, p) beside
// own(t0, t1, s−p) (s ≤ p is past's alone).
func PastMask(past, own Mask, p int) Mask {
	return func(t0, t1, s int) *Node {
		if s <= p {
			return past(t0, t1, s)
		}
		return Concatenate([]*Node{past(t0, t1, p), own(t0, t1, s-p)}, 2)
	}
}

// queryRows is the columns [t0, t1) of x [B, T].
func queryRows(x *Node, t0, t1 int) *Node {
	if t0 == 0 && t1 == x.Shape().Dim(1) {
		return x
	}
	return Slice(x, AxisRange(), AxisRange(t0, t1))
}

// firstKeys is the first s columns of x [B, S].
func firstKeys(x *Node, s int) *Node { return queryRows(x, 0, s) }
