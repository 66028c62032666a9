package metrics

import (
	"math"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// Corpus BLEU and chrF as lm-eval's bleu and chrf aggregations compute them
// with sacrebleu 2.x's defaults (corpus_bleu: 13a tokenizer, exp smoothing,
// 4-grams; corpus_chrf: 6 character orders, beta 2, whitespace removed), one
// reference per prediction. Pairs are (reference, prediction).

// CorpusChrF is sacrebleu.corpus_chrf(preds, [refs]).score.
func CorpusChrF(pairs [][2]string) float64 { return corpusScore(AggChrF, pairs) }

const chrfOrder = 6

// chrfStats are one pair's [hyp, ref, match] n-gram counts per order.
func chrfStats(p [2]string) []int {
	stats := make([]int, 3*chrfOrder)
	ref, hyp := charNgrams(p[0], chrfOrder), charNgrams(p[1], chrfOrder)
	for n := 0; n < chrfOrder; n++ {
		stats[3*n], stats[3*n+1], stats[3*n+2] = matchStats(hyp[n], ref[n])
	}
	return stats
}

// charNgrams counts the character n-grams (n = 1…order) of s with its
// whitespace removed (sacrebleu's extract_all_char_ngrams).
func charNgrams(s string, order int) []map[string]int {
	rs := []rune(strings.Join(py.Split(s), ""))
	out := make([]map[string]int, order)
	for n := 1; n <= order; n++ {
		c := map[string]int{}
		for i := 0; i+n <= len(rs); i++ {
			c[string(rs[i:i+n])]++
		}
		out[n-1] = c
	}
	return out
}

// matchStats is sacrebleu's _get_match_statistics: hypothesis n-grams (0
// when the reference has none), reference n-grams, clipped matches.
func matchStats(hyp, ref map[string]int) (h, r, m int) {
	for ng, c := range hyp {
		h += c
		if rc, ok := ref[ng]; ok {
			m += min(c, rc)
		}
	}
	for _, c := range ref {
		r += c
	}
	if len(ref) == 0 {
		h = 0
	}
	return h, r, m
}

// chrfScore is CHRF._compute_f_score without eps smoothing: the F-beta of
// the precision and recall averaged over the orders that have both
// hypothesis and reference n-grams.
func chrfScore(stats []int, order int, beta float64) float64 {
	factor := beta * beta
	var avgP, avgR float64
	eff := 0
	for i := 0; i < order; i++ {
		nh, nr, nm := stats[3*i], stats[3*i+1], stats[3*i+2]
		if nh > 0 && nr > 0 {
			avgP += float64(nm) / float64(nh)
			avgR += float64(nm) / float64(nr)
			eff++
		}
	}
	if eff == 0 {
		return 0
	}
	avgP /= float64(eff)
	avgR /= float64(eff)
	if avgP+avgR == 0 {
		return 0
	}
	return 100 * ((1 + factor) * avgP * avgR / (factor*avgP + avgR))
}

// tok13a is sacrebleu's 13a tokenizer (mteval-v13a).
var tok13a = []struct {
	re   *py.Regexp
	repl string
}{
	{py.MustCompile(`([\{-\~\[-\` + "`" + ` -\&\(-\+\:-\@\/])`), ` \1 `},
	{py.MustCompile(`([^0-9])([\.,])`), `\1 \2 `},
	{py.MustCompile(`([\.,])([^0-9])`), ` \1 \2`},
	{py.MustCompile(`([0-9])(-)`), `\1 \2 `},
}

func tokenize13a(line string) []string {
	line = strings.ReplaceAll(line, "<skipped>", "")
	line = strings.ReplaceAll(line, "-\n", "")
	line = strings.ReplaceAll(line, "\n", " ")
	if strings.Contains(line, "&") {
		line = strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(line)
	}
	line = " " + line + " "
	for _, t := range tok13a {
		line = t.re.Sub(line, t.repl)
	}
	return py.Split(line)
}

// wordNgrams counts the 1…4-grams of tokens.
func wordNgrams(tokens []string) map[string]int {
	c := map[string]int{}
	for n := 1; n <= 4; n++ {
		for i := 0; i+n <= len(tokens); i++ {
			c[strings.Join(tokens[i:i+n], "\x00")]++
		}
	}
	return c
}

// CorpusBLEU is sacrebleu.corpus_bleu(preds, [refs]).score.
func CorpusBLEU(pairs [][2]string) float64 { return corpusScore(AggBLEU, pairs) }

// bleuStats are one pair's [hyp length, ref length, correct 1…4-grams,
// total 1…4-grams].
func bleuStats(p [2]string) []int {
	ref := tokenize13a(strings.TrimRightFunc(p[0], py.IsSpace))
	hyp := tokenize13a(strings.TrimRightFunc(p[1], py.IsSpace))
	stats := make([]int, 10)
	stats[0], stats[1] = len(hyp), len(ref)
	rc := wordNgrams(ref)
	for ng, c := range wordNgrams(hyp) {
		n := strings.Count(ng, "\x00")
		stats[6+n] += c
		if r, ok := rc[ng]; ok {
			stats[2+n] += min(c, r)
		}
	}
	return stats
}

// bleuScore is BLEU.compute_bleu with exp smoothing, Go's math.Exp and
// math.Log.
func bleuScore(correct, total []int, sysLen, refLen int) float64 {
	return bleuScoreWith(correct, total, sysLen, refLen, math.Exp, math.Log)
}

// bleuScoreWith is BLEU.compute_bleu with exp smoothing and the given
// exp and log (sacrebleu's math.exp and math.log).
func bleuScoreWith(correct, total []int, sysLen, refLen int, exp, log func(float64) float64) float64 {
	bp := 1.0
	if sysLen < refLen {
		bp = 0
		if sysLen > 0 {
			bp = exp(1 - float64(refLen)/float64(sysLen))
		}
	}
	any := false
	for _, c := range correct {
		any = any || c != 0
	}
	if !any {
		return 0
	}
	prec := make([]float64, 4)
	smooth := 1.0
	for n := 0; n < 4; n++ {
		if total[n] == 0 {
			break
		}
		if correct[n] == 0 {
			smooth *= 2
			prec[n] = 100 / (smooth * float64(total[n]))
		} else {
			prec[n] = 100 * float64(correct[n]) / float64(total[n])
		}
	}
	sum := 0.0
	for _, p := range prec {
		if p == 0 {
			sum += -9999999999
		} else {
			sum += log(p)
		}
	}
	return bp * exp(sum/4)
}

// corpusStats computes a corpus metric's per-pair sufficient statistics,
// and corpusFromStats the score of their sum: sacrebleu sums segment
// statistics, so a bootstrap resample needs no recomputation per pair.
var corpusStats = map[string]func([2]string) []int{AggBLEU: bleuStats, AggChrF: chrfStats, AggTER: terStats}

var corpusFromStats = map[string]func([]int) float64{
	AggBLEU: func(s []int) float64 { return bleuScore(s[2:6], s[6:10], s[0], s[1]) },
	AggChrF: func(s []int) float64 { return chrfScore(s, chrfOrder, 2) },
	AggTER:  terScore,
}

// corpusScore is metric agg over pairs.
func corpusScore(agg string, pairs [][2]string) float64 {
	var sum []int
	for _, p := range pairs {
		st := corpusStats[agg](p)
		if sum == nil {
			sum = make([]int, len(st))
		}
		for i, x := range st {
			sum[i] += x
		}
	}
	if sum == nil {
		sum = make([]int, len(corpusStats[agg]([2]string{})))
	}
	return corpusFromStats[agg](sum)
}
