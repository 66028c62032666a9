package metrics

import (
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// ROUGE as rouge_score 0.1.2's RougeScorer(["rouge1", "rouge2",
// "rougeLsum"]) scores one (target, prediction) pair: the default
// tokenizer without a stemmer, n-gram overlap for rouge1 and rouge2, and
// the summary-level union LCS over newline-separated sentences for
// rougeLsum. Only F-measures are kept.

// RougeScores are the F-measures of one pair, in [0, 1].
type RougeScores struct{ Rouge1, Rouge2, RougeLsum float64 }

// Rouge is RougeScorer(["rouge1", "rouge2", "rougeLsum"]).score(target,
// prediction)'s F-measures.
func Rouge(target, prediction string) RougeScores {
	t, p := rougeTokens(target), rougeTokens(prediction)
	return RougeScores{
		Rouge1:    rougeN(t, p, 1),
		Rouge2:    rougeN(t, p, 2),
		RougeLsum: rougeLsum(rougeSents(target), rougeSents(prediction)),
	}
}

// rougeTokens is rouge_score's tokenize without a stemmer: Python's
// lowercase, then the maximal runs of [a-z0-9].
func rougeTokens(s string) []string {
	return strings.FieldsFunc(py.Lower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
}

// rougeSents are rougeLsum's sentences: text.split("\n"), empty ones
// dropped, each tokenized.
func rougeSents(s string) [][]string {
	var out [][]string
	for _, x := range strings.Split(s, "\n") {
		if x != "" {
			out = append(out, rougeTokens(x))
		}
	}
	return out
}

// rougeFmeasure is scoring.fmeasure.
func rougeFmeasure(p, r float64) float64 {
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

// rougeN is _score_ngrams over _create_ngrams(…, n): the F-measure.
func rougeN(target, prediction []string, n int) float64 {
	tc, pc := rougeNgrams(target, n), rougeNgrams(prediction, n)
	inter, tn, pn := 0, 0, 0
	for g, c := range tc {
		inter += min(c, pc[g])
		tn += c
	}
	for _, c := range pc {
		pn += c
	}
	return rougeFmeasure(float64(inter)/float64(max(pn, 1)), float64(inter)/float64(max(tn, 1)))
}

func rougeNgrams(tokens []string, n int) map[string]int {
	c := map[string]int{}
	for i := 0; i+n <= len(tokens); i++ {
		c[strings.Join(tokens[i:i+n], " ")]++
	}
	return c
}

// rougeLsum is _summary_level_lcs: each reference sentence's union LCS
// with the candidate sentences, each token counted at most as often as it
// occurs in both summaries.
func rougeLsum(ref, can [][]string) float64 {
	if len(ref) == 0 || len(can) == 0 {
		return 0
	}
	cntR, cntC := map[string]int{}, map[string]int{}
	m, n := 0, 0
	for _, s := range ref {
		m += len(s)
		for _, t := range s {
			cntR[t]++
		}
	}
	for _, s := range can {
		n += len(s)
		for _, t := range s {
			cntC[t]++
		}
	}
	if m == 0 || n == 0 {
		return 0
	}
	hits := 0
	for _, r := range ref {
		for _, t := range unionLCS(r, can) {
			if cntC[t] > 0 && cntR[t] > 0 {
				hits++
				cntC[t]--
				cntR[t]--
			}
		}
	}
	return rougeFmeasure(float64(hits)/float64(n), float64(hits)/float64(m))
}

// unionLCS is _union_lcs: the tokens of ref at the union of the LCS
// indices with each candidate sentence, in ref's order.
func unionLCS(ref []string, can [][]string) []string {
	in := make([]bool, len(ref))
	for _, c := range can {
		for _, i := range lcsIndices(ref, c) {
			in[i] = true
		}
	}
	var out []string
	for i, ok := range in {
		if ok {
			out = append(out, ref[i])
		}
	}
	return out
}

// lcsIndices is lcs_ind: the DP table, then _backtrack_norec's walk from
// the end (a match first, else left when strictly longer, else up).
func lcsIndices(ref, can []string) []int {
	rows, cols := len(ref), len(can)
	t := make([][]int, rows+1)
	for i := range t {
		t[i] = make([]int, cols+1)
	}
	for i := 1; i <= rows; i++ {
		for j := 1; j <= cols; j++ {
			if ref[i-1] == can[j-1] {
				t[i][j] = t[i-1][j-1] + 1
			} else {
				t[i][j] = max(t[i-1][j], t[i][j-1])
			}
		}
	}
	var idx []int
	for i, j := rows, cols; i > 0 && j > 0; {
		switch {
		case ref[i-1] == can[j-1]:
			idx = append(idx, i-1)
			i--
			j--
		case t[i][j-1] > t[i-1][j]:
			j--
		default:
			i--
		}
	}
	return idx
}
