package metrics

import "math"

// maxAssignment solves the rectangular linear assignment problem maximising
// the total score (scipy.optimize.linear_sum_assignment(-scores)), returning
// for each row its assigned column or -1. It pads to a square matrix with
// zeros and runs the O(n³) Hungarian algorithm (Kuhn–Munkres with
// potentials). The optimal total is unique even when the assignment is not,
// which is all DROP's f1 depends on.
func maxAssignment(scores [][]float64, rows, cols int) []int {
	n := max(rows, cols)
	cost := func(i, j int) float64 { // 1-based, minimise -score
		if i-1 < rows && j-1 < cols {
			return -scores[i-1][j-1]
		}
		return 0
	}
	u, v := make([]float64, n+1), make([]float64, n+1)
	p, way := make([]int, n+1), make([]int, n+1) // p[j]: row matched to column j
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv := make([]float64, n+1)
		used := make([]bool, n+1)
		for j := range minv {
			minv[j] = math.Inf(1)
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				if cur := cost(i0, j) - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	out := make([]int, rows)
	for i := range out {
		out[i] = -1
	}
	for j := 1; j <= n; j++ {
		if r := p[j] - 1; r >= 0 && r < rows && j-1 < cols {
			out[r] = j - 1
		}
	}
	return out
}
