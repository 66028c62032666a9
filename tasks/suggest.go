package tasks

import (
	"fmt"
	"sort"
	"strings"
)

// closest returns the candidates a mistyped name most likely meant: those
// that start with it; else, for names of 3 or more letters, those that
// contain it (both shortest first: "m" means "mmlu" before "mmlu_anatomy");
// else, sorted, those at the smallest edit distance, if that is at most a
// third of the name's length (at least 1). Nothing is close to an empty
// name.
func closest(name string, cands []string) []string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return nil
	}
	var prefix, sub []string
	for _, c := range cands {
		switch {
		case strings.HasPrefix(c, name):
			prefix = append(prefix, c)
		case len(name) >= 3 && strings.Contains(c, name):
			sub = append(sub, c)
		}
	}
	best := prefix
	if len(best) == 0 {
		best = sub
	}
	if len(best) > 0 {
		sort.Slice(best, func(i, j int) bool {
			if len(best[i]) != len(best[j]) {
				return len(best[i]) < len(best[j])
			}
			return best[i] < best[j]
		})
		return best
	}
	bestD := max(1, len([]rune(name))/3) + 1
	for _, c := range cands {
		switch d := editDistance(name, c); {
		case d < bestD:
			best, bestD = []string{c}, d
		case d == bestD:
			best = append(best, c)
		}
	}
	sort.Strings(best)
	return best
}

// didYouMean is ": did you mean "a"?" (or "a" or "b", or the first three
// and how many more) for the names, or "" when there are none.
func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, 0, 3)
	for _, n := range names[:min(len(names), 3)] {
		q = append(q, fmt.Sprintf("%q", n))
	}
	switch {
	case len(names) > 3:
		return fmt.Sprintf(": did you mean %s or one of %d more?", strings.Join(q, ", "), len(names)-3)
	case len(q) == 1:
		return fmt.Sprintf(": did you mean %s?", q[0])
	}
	return fmt.Sprintf(": did you mean %s or %s?", strings.Join(q[:len(q)-1], ", "), q[len(q)-1])
}

// editDistance is the optimal-string-alignment distance between a and b
// (runes): insertions, deletions, substitutions and swaps of neighbours
// ("hellasawg" → "hellaswag" is 1).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
