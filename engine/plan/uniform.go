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

// uniformPacked is batches (cutBatches, longest rows first) in one shape
// when worthIt, else batches.
func uniformPacked(tr *packTrie, items []Item, batches []packBatch, batchSize int, slack float64) []packBatch {
	if len(batches) < 2 {
		return batches
	}
	var rows []packRow
	var before []int
	t := 0
	for _, b := range batches {
		rows = append(rows, b.rows...)
		before = append(before, b.B*b.T)
		t = max(t, b.T)
	}
	n, rowsPer := uniformShape(len(rows), t, batchSize)
	if !worthIt(before, n, rowsPer, t, slack) {
		return batches
	}
	out := make([]packBatch, 0, n)
	k := 0
	for start := 0; start < len(rows); start += rowsPer {
		b := packBatch{B: rowsPer, T: t, rows: rows[start:min(start+rowsPer, len(rows))]}
		for _, r := range b.rows {
			rk, rr := tr.rowCounts(items, r)
			b.K, b.real = b.K+rk, b.real+rr
		}
		k = max(k, BucketPow2(max(b.K, 1)))
		out = append(out, b)
	}
	for i := range out {
		out[i].K = k
	}
	return out
}

// uniformUnpacked is batches (planBatches, longest first) in one shape
// when worthIt, else batches.
func uniformUnpacked(items []Item, batches []batch, batchSize int, slack float64) []batch {
	if len(batches) < 2 {
		return batches
	}
	var rows, before []int
	t := 0
	for _, b := range batches {
		rows = append(rows, b.rows...)
		before = append(before, b.B*b.T)
		t = max(t, b.T)
	}
	n, rowsPer := uniformShape(len(rows), t, batchSize)
	if !worthIt(before, n, rowsPer, t, slack) {
		return batches
	}
	out := make([]batch, 0, n)
	k := 0
	for start := 0; start < len(rows); start += rowsPer {
		b := batch{B: rowsPer, T: t, rows: rows[start:min(start+rowsPer, len(rows))]}
		for _, r := range b.rows {
			b.K += len(items[r].Targets)
		}
		k = max(k, BucketPow2(max(b.K, 1)))
		out = append(out, b)
	}
	for i := range out {
		out[i].K = k
	}
	return out
}
