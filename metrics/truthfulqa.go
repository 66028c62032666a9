package metrics

import (
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// SentenceBLEUIntl is lm-eval's truthfulqa bleu([[ref]], [hyp]):
// sacrebleu.corpus_bleu([hyp], [[ref]], smooth_method="exp",
// smooth_value=0.0, force=False, lowercase=False, tokenize="intl",
// use_effective_order=False).score — one segment, its trailing whitespace
// stripped, the intl tokenizer, 1…4-grams, exp smoothing, all four orders,
// and math.exp and math.log as CPython computes them (py.Exp, py.Log).
func SentenceBLEUIntl(ref, hyp string) float64 {
	r := tokenizeIntl(strings.TrimRightFunc(ref, py.IsSpace))
	h := tokenizeIntl(strings.TrimRightFunc(hyp, py.IsSpace))
	correct, total := make([]int, 4), make([]int, 4)
	rc := orderNgrams(r)
	for ng, c := range orderNgrams(h) {
		total[ng.n-1] += c
		if x, ok := rc[ng]; ok {
			correct[ng.n-1] += min(c, x)
		}
	}
	return bleuScoreWith(correct, total, len(h), len(r), py.Exp, py.Log)
}

// ngram is an n-gram: its order and its tokens joined by spaces (tokens
// hold no whitespace).
type ngram struct {
	n int
	s string
}

// orderNgrams counts the 1…4-grams of tokens.
func orderNgrams(tokens []string) map[ngram]int {
	c := map[ngram]int{}
	for n := 1; n <= 4; n++ {
		for i := 0; i+n <= len(tokens); i++ {
			c[ngram{n, strings.Join(tokens[i:i+n], " ")}]++
		}
	}
	return c
}
