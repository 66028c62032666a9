package plan

// Shapes: rows are cut into passes of at most Options.BatchSize rows and
// padded to bucketed shapes (B, T, K) so that each graph shape is compiled
// once:
//
//	T: 8, 16, 24, 32, 48, 64, 96, 128, 192, … (multiples of 8, ≈1.5× apart)
//	K: scored positions of the whole pass, packed, a power of two
//	B: a power of two ≤ BatchSize (or BatchSize itself), and B·T ≤ 4096
//	   tokens unless a single row is longer (passRows)
//
// Rows are right-padded: causality already hides the padding from every
// real position, and masked keys add exact zeros, so a row's result does
// not depend on its bucket or its neighbours (engine's invariance tests).
//
// Where a graph of a new shape costs next to nothing (goeval's pure-Go
// backend), the buckets are padding for nothing: the shapes are exact
// instead (Shapes.Exact), T rounded up to 16, K to 8, B the rows there
// are.

// Shapes rounds a graph's dimensions: to the buckets above, or, when
// Exact, barely (see above).
type Shapes struct{ Exact bool }

// exactAlignT and exactAlignK are the granularity of exact shapes.
const exactAlignT, exactAlignK = 16, 8

// T is the padded length of rows of n tokens (at most maxLen, unless n
// is longer).
func (r Shapes) T(n, maxLen int) int {
	if !r.Exact {
		return bucketT(n, maxLen)
	}
	return min(roundUp(n, exactAlignT), max(roundUp(maxLen, 8), roundUp(n, 8)))
}

// B is the row count of a pass of n rows of at most rowCap.
func (r Shapes) B(n, rowCap int) int {
	if !r.Exact {
		return BucketB(n, rowCap)
	}
	return n
}

// K is the scored-slot count of a pass scoring n positions.
func (r Shapes) K(n int) int {
	if !r.Exact {
		return BucketPow2(n)
	}
	return roundUp(n, exactAlignK)
}

// roundUp rounds n up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// bucketT rounds a sequence length up to the next bucket (multiples of 8,
// about 1.5× apart), capped at maxLen rounded up to a multiple of 8.
func bucketT(n, maxLen int) int {
	limit := (maxLen + 7) / 8 * 8
	b := 8
	for b < n {
		if b&(b-1) == 0 && b >= 16 { // power of two → ×1.5
			b = b / 2 * 3
		} else if b < 16 {
			b += 8
		} else { // 1.5 × power of two → next power of two
			b = b / 3 * 4
		}
	}
	return min(b, max(limit, (n+7)/8*8))
}

// BucketPow2 rounds n ≥ 1 up to a power of two.
func BucketPow2(n int) int {
	b := 1
	for b < n {
		b *= 2
	}
	return b
}

// BucketB rounds a row count up to a power of two, but never above the
// batch size.
func BucketB(n, batchSize int) int { return min(BucketPow2(n), batchSize) }

// passTokenBudget caps B·T of one scoring pass (but never below one row):
// activations grow with B·T (the MLP's [B, T, I] intermediates: 4096 ×
// 4864 × 4 bytes = 80 MB each at Qwen2.5-0.5B), so 8 rolling windows of
// 2048 tokens run as 4 passes of 2 rows. Results do not depend on B
// (engine's invariance tests).
const passTokenBudget = 4096

// passRows is the most rows a pass of T-token rows takes: batchSize, or
// fewer so that B·T ≤ passTokenBudget, at least 1.
func passRows(t, batchSize int) int { return max(1, min(batchSize, passTokenBudget/t)) }
