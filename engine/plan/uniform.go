package plan

// Uniform shapes (Options.Uniform). Where each new graph shape costs a
// compile (XLA: about a second on a CPU, 2–12 s on a GPU) and a padded
// token little (a GPU's pass costs about the same at a few rows more), the
// few passes at the end of a call — the last rows of the longest bucket,
// rows a bucket shorter, a pass of fewer rows — are each a compile for
// less than a pass's work. So a call's packed passes take one shape and
// its unpacked passes another, when that adds at most Options.Uniform of
// the padded tokens they run otherwise: every row padded to the longest
// row's bucket T, cut into passes of as many rows as T allows (passRows)
// in their order (longest first), the last pass padded to the same rows,
// and K the largest slot bucket of those passes. A row's scores do not
// depend on its padding or its neighbours (engine's invariance tests).

// uniformShape is the one shape of rows row lengths cut into passes at
// length t: how many passes of b rows.
func uniformShape(rows, t, batchSize int) (passes, b int) {
	rowCap := passRows(t, batchSize)
	passes = (rows + rowCap - 1) / rowCap
	if passes == 1 {
		return 1, BucketB(rows, rowCap)
	}
	return passes, rowCap
}

// worthIt reports whether passes of one shape (n passes of b rows of t
// tokens) add at most slack of the padded tokens of the passes before.
func worthIt(before []int, n, b, t int, slack float64) bool {
	padded := 0
	for _, x := range before {
		padded += x
	}
	return float64(n*b*t-padded) <= slack*float64(padded)
}

// uniformRows is the rows of n passes (pass i: rowsOf(i), shapeOf(i) = its
// rows and length) cut into passes of one shape — rowsPer rows at length t,
// the last pass padded to the same rows — or ok false when that shape is
// not worthIt (or there is only one pass) and the passes stay as they are.
func uniformRows[R any](n int, rowsOf func(int) []R, shapeOf func(int) (b, t int), batchSize int, slack float64) (cut [][]R, rowsPer, t int, ok bool) {
	if n < 2 {
		return nil, 0, 0, false
	}
	var rows []R
	before := make([]int, n)
	for i := range n {
		rows = append(rows, rowsOf(i)...)
		b, bt := shapeOf(i)
		before[i] = b * bt
		t = max(t, bt)
	}
	passes, rowsPer := uniformShape(len(rows), t, batchSize)
	if !worthIt(before, passes, rowsPer, t, slack) {
		return nil, 0, 0, false
	}
	for start := 0; start < len(rows); start += rowsPer {
		cut = append(cut, rows[start:min(start+rowsPer, len(rows))])
	}
	return cut, rowsPer, t, true
}

// sameK sets every pass's slot count (k(i) points at pass i's) to the
// largest slot bucket among them, so the passes share one shape.
func sameK(n int, k func(int) *int) {
	most := 0
	for i := range n {
		most = max(most, BucketPow2(max(*k(i), 1)))
	}
	for i := range n {
		*k(i) = most
	}
}

// uniformPacked is batches (cutBatches, longest rows first) in one shape
// when worthIt, else batches.
func uniformPacked(tr *packTrie, items []Item, batches []packBatch, batchSize int, slack float64) []packBatch {
	cut, rowsPer, t, ok := uniformRows(len(batches),
		func(i int) []packRow { return batches[i].rows },
		func(i int) (int, int) { return batches[i].B, batches[i].T }, batchSize, slack)
	if !ok {
		return batches
	}
	out := make([]packBatch, len(cut))
	for i, rows := range cut {
		out[i] = packBatch{B: rowsPer, T: t, rows: rows}
		for _, r := range rows {
			rk, rr := tr.rowCounts(items, r)
			out[i].K, out[i].real = out[i].K+rk, out[i].real+rr
		}
	}
	sameK(len(out), func(i int) *int { return &out[i].K })
	return out
}

// uniformUnpacked is batches (planBatches, longest first) in one shape
// when worthIt, else batches.
func uniformUnpacked(items []Item, batches []batch, batchSize int, slack float64) []batch {
	cut, rowsPer, t, ok := uniformRows(len(batches),
		func(i int) []int { return batches[i].rows },
		func(i int) (int, int) { return batches[i].B, batches[i].T }, batchSize, slack)
	if !ok {
		return batches
	}
	out := make([]batch, len(cut))
	for i, rows := range cut {
		out[i] = batch{B: rowsPer, T: t, rows: rows}
		for _, r := range rows {
			out[i].K += len(items[r].Targets)
		}
	}
	sameK(len(out), func(i int) *int { return &out[i].K })
	return out
}
