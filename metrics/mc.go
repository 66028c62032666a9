package metrics

import (
	"math"
	"unicode/utf8"
)

// GoldOutOfRange is lm-eval's marker for a gold index outside the choices.
const GoldOutOfRange = -100

// Argmax is numpy.argmax: the first maximum wins ties, and the first NaN, if
// any, wins outright. It returns -1 for an empty slice.
func Argmax(xs []float64) int {
	best := -1
	for i, x := range xs {
		if math.IsNaN(x) {
			return i
		}
		if best < 0 || x > xs[best] {
			best = i
		}
	}
	return best
}

// MCScores are the multiple-choice per-document metrics of lm-eval's
// ConfigurableTask.process_results.
type MCScores struct {
	Acc, AccNorm, AccBytes float64
	ExactMatch             float64 // int(is_greedy[gold])
	Pred, PredNorm         int     // argmax indices
}

// ScoreMultipleChoice computes acc, acc_norm, acc_bytes and exact_match for
// one document. lls[i] is the log-likelihood of target_delimiter+choices[i];
// acc_norm divides by len(choices[i]) in Unicode code points (Python len, the
// choice WITHOUT the delimiter), acc_bytes by its UTF-8 length. gold may be
// GoldOutOfRange (scores 0 everywhere).
func ScoreMultipleChoice(lls []float64, isGreedy []bool, choices []string, gold int) MCScores {
	norm := make([]float64, len(lls))
	byteNorm := make([]float64, len(lls))
	for i, ll := range lls {
		var c string
		if i < len(choices) {
			c = choices[i]
		}
		norm[i] = ll / float64(utf8.RuneCountInString(c))
		byteNorm[i] = ll / float64(len(c))
	}
	s := MCScores{Pred: Argmax(lls), PredNorm: Argmax(norm)}
	s.Acc = b2f(s.Pred == gold)
	s.AccNorm = b2f(s.PredNorm == gold)
	s.AccBytes = b2f(Argmax(byteNorm) == gold)
	if gold >= 0 && gold < len(isGreedy) && isGreedy[gold] {
		s.ExactMatch = 1
	}
	return s
}

// ScoreMultipleTarget is ScoreMultipleChoice for a list of golds (lm-eval's
// multiple_target): a prediction is right if it is any gold.
func ScoreMultipleTarget(lls []float64, isGreedy []bool, choices []string, golds []int) MCScores {
	s := ScoreMultipleChoice(lls, isGreedy, choices, GoldOutOfRange)
	byteNorm := make([]float64, len(lls))
	for i, ll := range lls {
		if i < len(choices) {
			byteNorm[i] = ll / float64(len(choices[i]))
		}
	}
	predByte := Argmax(byteNorm)
	for _, g := range golds {
		s.Acc = math.Max(s.Acc, b2f(s.Pred == g))
		s.AccNorm = math.Max(s.AccNorm, b2f(s.PredNorm == g))
		s.AccBytes = math.Max(s.AccBytes, b2f(predByte == g))
		if g >= 0 && g < len(isGreedy) && isGreedy[g] {
			s.ExactMatch = 1
		}
	}
	return s
}

// AccMutualInfo is lm-eval's acc_mutual_info: argmax of conditional minus
// unconditional (empty-context) log-likelihoods equals gold.
func AccMutualInfo(condLLs, uncondLLs []float64, gold int) float64 {
	d := make([]float64, len(condLLs))
	for i := range d {
		d[i] = condLLs[i] - uncondLLs[i]
	}
	return b2f(Argmax(d) == gold)
}

// GoldIndex resolves a gold given as an int or a choice string to an index,
// GoldOutOfRange when it is not among the choices (lm-eval's rule).
func GoldIndex(gold any, choices []string) int {
	switch g := gold.(type) {
	case int:
		return inRange(g, len(choices))
	case int64:
		return inRange(int(g), len(choices))
	case string:
		for i, c := range choices {
			if c == g {
				return i
			}
		}
	}
	return GoldOutOfRange
}

// inRange mirrors lm-eval's `gold if gold < len(choices) else -100` (a
// negative gold is kept: Python indexing would accept it).
func inRange(g, n int) int {
	if g < n {
		return g
	}
	return GoldOutOfRange
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
