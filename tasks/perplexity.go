package tasks

import (
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// Perplexity tasks: wikitext (loglikelihood_rolling over detokenized pages)
// and lambada_openai (loglikelihood of the last word).

var (
	wikiSlashRe = py.MustCompile(`/' [0-9]/`)
	wikiBrRes   = [][2]string{
		{`\(\s*([^\)]*?)\s*\)`, `(\1)`},
		{`\[\s*([^\]]*?)\s*\]`, `[\1]`},
		{`{\s*([^}]*?)\s*}`, `{\1}`},
		{`\"\s*([^\"]*?)\s*\"`, `"\1"`},
		{`'\s*([^']*?)\s*'`, `'\1'`},
	}
	wikiBrCompiled []*py.Regexp
	wsSplitRe      = py.MustCompile(`\s+`)
)

func init() {
	for _, p := range wikiBrRes {
		wikiBrCompiled = append(wikiBrCompiled, py.MustCompile(p[0]))
	}
}

func replacePairs(s string, pairs ...string) string {
	for i := 0; i < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// wikitextDetokenize is preprocess_wikitext.wikitext_detokenizer.
func wikitextDetokenize(s string) string {
	s = strings.ReplaceAll(s, "s '", "s'")
	s = wikiSlashRe.Sub(s, `/'[0-9]/`)
	s = replacePairs(s, " @-@ ", "-", " @,@ ", ",", " @.@ ", ".",
		" : ", ": ", " ; ", "; ", " . ", ". ", " ! ", "! ", " ? ", "? ", " , ", ", ")
	for i, re := range wikiBrCompiled {
		s = re.Sub(s, wikiBrRes[i][1])
	}
	return replacePairs(s, "= = = =", "====", "= = =", "===", "= =", "==",
		" \u00b0 ", "\u00b0", " \n", "\n", "\n ", "\n", " N ", " 1 ", " 's", "'s")
}

func init() {
	register(&spec{
		name: "wikitext", version: 2.0, ds: dataset{Path: "EleutherAI/wikitext_document_level", Name: "wikitext-2-raw-v1"},
		trainSplit: "train", valSplit: "validation", testSplit: "test", output: LoglikelihoodRolling,
		text: func(Doc) (string, error) { return "", nil },
		target: func(d Doc) (any, error) {
			p, err := str(d, "page")
			return wikitextDetokenize(p), err
		},
		metrics: []MetricSpec{{"word_perplexity", "weighted_perplexity", false},
			{"byte_perplexity", "weighted_perplexity", false}, {"bits_per_byte", "bits_per_byte", false}},
		score: scoreWikitext,
	})
	register(&spec{
		name: "lambada_openai", tags: []string{"lambada"}, version: 1.0, ds: dataset{Path: "EleutherAI/lambada_openai", Name: "default"},
		testSplit: "test", output: Loglikelihood,
		text: func(d Doc) (string, error) {
			t, err := str(d, "text")
			w := strings.Split(t, " ")
			return strings.Join(w[:len(w)-1], " "), err
		},
		target: func(d Doc) (any, error) {
			t, err := str(d, "text")
			w := strings.Split(t, " ")
			return " " + w[len(w)-1], err
		},
		metrics: []MetricSpec{{"perplexity", "perplexity", false}, {"acc", "mean", true}},
		score:   scoreLoglikelihood,
	})
}

// scoreWikitext: (ll, words) and (ll, bytes) of the original page.
func scoreWikitext(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	page, err := str(inst.Doc, "page")
	if err != nil {
		return nil, err
	}
	ll := resps[0].LogProb
	words := float64(len(wsSplitRe.Split(page)))
	bytes := float64(len(page))
	return map[string]SampleResult{"none": {Metrics: map[string]metrics.Value{
		"word_perplexity": metrics.Pair(ll, words),
		"byte_perplexity": metrics.Pair(ll, bytes),
		"bits_per_byte":   metrics.Pair(ll, bytes),
	}, FilteredResps: ll}}, nil
}

// scoreLoglikelihood: perplexity = ll, acc = int(is_greedy) (an int, as
// lm-eval logs it).
func scoreLoglikelihood(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	r := resps[0]
	return map[string]SampleResult{"none": {Metrics: map[string]metrics.Value{"perplexity": metrics.Float(r.LogProb), "acc": metrics.Bool(r.IsGreedy)},
		FilteredResps: [2]any{r.LogProb, r.IsGreedy}}}, nil
}
