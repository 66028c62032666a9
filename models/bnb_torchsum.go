package models

// torchMeanF32 is torch's x.mean() of a contiguous 1-D float32 tensor on
// the CPU, single-threaded (up to 32,768 values, torch's grain size, it
// reduces in one thread): its float32 sum (torchSumF32) divided by the
// count in float32.
func torchMeanF32(x []float32) float32 {
	return torchSumF32(x) / float32(len(x))
}

// torchVecWidth is the float32 lanes of the vectors torch's sum kernel
// adds (8, found against torch 2's sums on an AVX-512 machine: every sum of
// 1 to 40,000 values agrees, 16 lanes disagree on half of them).
const torchVecWidth = 8

// torchSumF32 is torch's cascade sum of x in float32 (ATen's SumKernel:
// vectorized_inner_sum): whole vectors of torchVecWidth lanes are summed
// lane-wise in four interleaved accumulators (row_sum, multi_row_sum's
// cascade), the tail values one by one into a scalar, which then adds the
// lanes in order; fewer values than a vector are summed as vectors of one.
func torchSumF32(x []float32) float32 {
	w := torchVecWidth
	if len(x) < w { // scalar_inner_sum: row_sum over single values
		return rowSumVec(func(i int) []float32 { return x[i : i+1] }, len(x), 1)[0]
	}
	nvec := len(x) / w
	vec := func(i int) []float32 { return x[i*w : (i+1)*w] }
	acc := rowSumVec(vec, nvec, w)
	var final float32
	for _, v := range x[nvec*w:] {
		final += v
	}
	for _, v := range acc {
		final += v
	}
	return final
}

// rowSumVec is ATen's row_sum over n vectors with an ILP factor of 4.
func rowSumVec(vec func(int) []float32, n, w int) []float32 {
	const ilp = 4
	rows := n / ilp
	partial := multiRowSum(func(r, k int) []float32 { return vec(r*ilp + k) }, rows, ilp, w)
	for i := rows * ilp; i < n; i++ {
		addVec(partial[0], vec(i))
	}
	for k := 1; k < ilp; k++ {
		addVec(partial[0], partial[k])
	}
	return partial[0]
}

// multiRowSum is ATen's multi_row_sum: nrows accumulators (each a vector
// of w lanes) summing size rows through a four-level cascade whose levels
// flush every 2^levelPower rows.
func multiRowSum(at func(row, k int) []float32, size, nrows, w int) [][]float32 {
	const levels = 4
	power := max(4, ceilLog2(size)/levels)
	step := 1 << power
	mask := step - 1
	acc := make([][][]float32, levels)
	for l := range acc {
		acc[l] = make([][]float32, nrows)
		for k := range acc[l] {
			acc[l][k] = make([]float32, w)
		}
	}
	i := 0
	for i+step <= size {
		for j := 0; j < step; j, i = j+1, i+1 {
			for k := range nrows {
				addVec(acc[0][k], at(i, k))
			}
		}
		for l := 1; l < levels; l++ {
			for k := range nrows {
				addVec(acc[l][k], acc[l-1][k])
				clear(acc[l-1][k])
			}
			if i&(mask<<(l*power)) != 0 {
				break
			}
		}
	}
	for ; i < size; i++ {
		for k := range nrows {
			addVec(acc[0][k], at(i, k))
		}
	}
	for l := 1; l < levels; l++ {
		for k := range nrows {
			addVec(acc[0][k], acc[l][k])
		}
	}
	return acc[0]
}

func addVec(dst, src []float32) {
	for i, v := range src {
		dst[i] += v
	}
}

// ceilLog2 is ⌈log2 n⌉ (0 for n ≤ 1), as ATen's utils::CeilLog2.
func ceilLog2(n int) int {
	if n <= 1 {
		return 0
	}
	l := 0
	for v := n - 1; v > 0; v >>= 1 {
		l++
	}
	return l
}
