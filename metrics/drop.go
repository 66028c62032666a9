package metrics

import (
	"math"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// DropEMF1 is lm-eval's drop/utils.py process_results for one prediction:
// the maximum exact match and F1 over the gold answers (each a list of
// spans), skipping golds whose first span is blank. The F1 is rounded to two
// decimals as numpy does (rint(x*100)/100, half to even).
func DropEMF1(pred string, golds [][]string) (em, f1 float64) {
	for _, gold := range golds {
		e, f := DropMetrics([]string{pred}, gold)
		if len(gold) > 0 && py.Strip(gold[0]) != "" {
			em, f1 = math.Max(em, e), math.Max(f1, f)
		}
	}
	return em, f1
}

// DropMetrics is drop/utils.py get_metrics(predicted, gold) for span lists:
// exact match of the normalized span sets and the bag-of-words F1 under the
// optimal one-to-one alignment of predicted and gold spans.
func DropMetrics(predicted, gold []string) (em, f1 float64) {
	pSpans, pBags := dropBags(predicted)
	gSpans, gBags := dropBags(gold)
	if sameSet(pSpans, gSpans) && len(pSpans) == len(gSpans) {
		em = 1
	}
	perBag := alignBags(pBags, gBags)
	f1 = math.RoundToEven(npMean(perBag)*100) / 100
	return em, f1
}

type bag map[string]bool

func dropBags(spans []string) ([]string, []bag) {
	norm := make([]string, len(spans))
	bags := make([]bag, len(spans))
	for i, s := range spans {
		norm[i] = DropNormalize(s)
		bags[i] = bag{}
		for _, w := range py.Split(norm[i]) {
			bags[i][w] = true
		}
	}
	return norm, bags
}

func sameSet(a, b []string) bool {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		sa[x] = true
	}
	for _, x := range b {
		sb[x] = true
	}
	if len(sa) != len(sb) {
		return false
	}
	for x := range sa {
		if !sb[x] {
			return false
		}
	}
	return true
}

// alignBags is drop/utils.py _align_bags: scores[g][p] = F1 when the numbers
// match, the optimal assignment, and per-gold-row maxima padded with zeros to
// max(len(gold), len(pred)).
func alignBags(pred, gold []bag) []float64 {
	scores := make([][]float64, len(gold))
	for g := range gold {
		scores[g] = make([]float64, len(pred))
		for p := range pred {
			if numbersMatch(gold[g], pred[p]) {
				scores[g][p] = bagF1(pred[p], gold[g])
			}
		}
	}
	out := make([]float64, max(len(gold), len(pred)))
	for r, c := range maxAssignment(scores, len(gold), len(pred)) {
		if c >= 0 {
			out[r] = math.Max(out[r], scores[r][c])
		}
	}
	return out
}

func bagF1(pred, gold bag) float64 {
	inter := 0
	for w := range gold {
		if pred[w] {
			inter++
		}
	}
	prec, rec := 1.0, 1.0
	if len(pred) > 0 {
		prec = float64(inter) / float64(len(pred))
	}
	if len(gold) > 0 {
		rec = float64(inter) / float64(len(gold))
	}
	if prec == 0 && rec == 0 {
		return 0
	}
	return (2 * prec * rec) / (prec + rec)
}

func numbersMatch(gold, pred bag) bool {
	gn := 0
	for w := range gold {
		if _, ok := py.ParseFloat(w); ok {
			gn++
			if pred[w] {
				return true
			}
		}
	}
	return gn == 0
}

var dropArticles = py.MustCompile(`\b(a|an|the)\b`)
var dropTokenSplit = py.MustCompile(" |-")

// DropNormalize is drop/utils.py _normalize: split on single spaces and
// hyphens; per token lowercase, strip ASCII punctuation unless it parses as
// a Python float, rewrite numbers as Python's str(float(t)) ("5" → "5.0"),
// drop articles, collapse whitespace; join the non-blank tokens.
func DropNormalize(answer string) string {
	var toks []string
	for _, t := range dropTokenSplit.Split(answer) {
		t = py.Lower(t)
		if _, ok := py.ParseFloat(t); !ok {
			t = strings.Map(func(r rune) rune {
				if r < 128 && strings.ContainsRune(pyPunctuation, r) {
					return -1
				}
				return r
			}, t)
		}
		if v, ok := py.ParseFloat(t); ok {
			t = py.Repr(v)
		}
		t = strings.Join(py.Split(dropArticles.Sub(t, " ")), " ")
		if py.Strip(t) != "" {
			toks = append(toks, t)
		}
	}
	return py.Strip(strings.Join(toks, " "))
}

// npMean is numpy's mean of a float64 vector: pairwise summation (see npSum)
// divided by n.
func npMean(xs []float64) float64 { return npSum(xs) / float64(len(xs)) }

// npSum is numpy's pairwise summation for contiguous float64 data: plain
// loop under 8 items, eight accumulators up to 128, recursive halves beyond.
func npSum(xs []float64) float64 {
	n := len(xs)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range xs {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += xs[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += xs[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return npSum(xs[:n2]) + npSum(xs[n2:])
}

// NPSum is numpy's sum of a contiguous float64 vector (pairwise summation,
// as npSum), for task hooks that port numpy code.
func NPSum(xs []float64) float64 { return npSum(xs) }
