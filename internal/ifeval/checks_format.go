package ifeval

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/goeval/goeval/internal/py"
)

var (
	highlightRe       = regexp.MustCompile(`\*[^\n\*]*\*`)
	doubleHighlightRe = regexp.MustCompile(`\*\*[^\n\*]*\*\*`)
	paragraphRe       = mustCompile(`\s?\*\*\*\s?`, false, false)
	titleRe           = regexp.MustCompile(`<<[^\n]+>>`)
	ppsRe             = mustCompile(`\s*p\.\s?p\.\s?s.*$`, false, true)
	psRe              = mustCompile(`\s*p\.\s?s\..*$`, false, true)
)

func highlightedSections(a *args) checker {
	n := a.num("num_highlights")
	return func(v string) (bool, error) {
		count := 0
		for _, h := range highlightRe.FindAllString(v, -1) {
			if py.Strip(strings.Trim(h, "*")) != "" {
				count++
			}
		}
		for _, h := range doubleHighlightRe.FindAllString(v, -1) {
			if py.Strip(strings.TrimSuffix(strings.TrimPrefix(h, "**"), "**")) != "" {
				count++
			}
		}
		return count >= n, nil
	}
}

func multipleSections(a *args) checker {
	sp := a.str("section_spliter", true)
	n := a.num("num_sections")
	re := a.pattern(`\s?`+sp+`\s?\d+\s?`, false, false)
	return func(v string) (bool, error) {
		return len(pySplit(re, v))-1 >= n, nil
	}
}

// pySplit is Python's re.split (no groups in the pattern): the pieces
// between the matches, empty matches included.
func pySplit(re *regexp.Regexp, s string) []string {
	var out []string
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:])
}

func numberParagraphs(a *args) checker {
	n := a.num("num_paragraphs")
	return func(v string) (bool, error) {
		ps := pySplit(paragraphRe, v)
		count := len(ps)
		for i, p := range ps {
			if py.Strip(p) == "" {
				if i == 0 || i == len(ps)-1 {
					count--
				} else {
					return false, nil
				}
			}
		}
		return count == n, nil
	}
}

func postscript(a *args) checker {
	marker := a.str("postscript_marker", true)
	var re *regexp.Regexp
	switch marker {
	case "P.P.S":
		re = ppsRe
	case "P.S.":
		re = psRe
	default:
		re = a.pattern(`\s*`+py.Lower(marker)+`.*$`, false, true)
	}
	return func(v string) (bool, error) { return re.MatchString(py.Lower(v)), nil }
}

func nthParagraphFirstWord(a *args) checker {
	num, nth := a.num("num_paragraphs"), a.num("nth_paragraph")
	if a.err == nil && (nth <= 0 || nth > num) {
		a.random("nth_paragraph")
	}
	want := py.Lower(a.str("first_word", false))
	return func(v string) (bool, error) {
		ps := strings.Split(v, "\n\n")
		count := len(ps)
		for _, p := range ps {
			if py.Strip(p) == "" {
				count--
			}
		}
		if nth > count {
			return false, nil
		}
		p := py.Strip(ps[nth-1])
		if p == "" {
			return false, nil
		}
		w := strings.TrimLeft(strings.TrimLeft(py.Strip(py.Split(p)[0]), "'"), `"`)
		var first strings.Builder
		for _, r := range w {
			if strings.ContainsRune(`.,?!'"`, r) {
				break
			}
			first.WriteString(py.Lower(string(r)))
		}
		return count == num && first.String() == want, nil
	}
}

func title(v string) (bool, error) {
	for _, t := range titleRe.FindAllString(v, -1) {
		if py.Strip(strings.TrimRight(strings.TrimLeft(t, "<"), ">")) != "" {
			return true, nil
		}
	}
	return false, nil
}

func twoResponses(v string) (bool, error) {
	var valid []string
	parts := strings.Split(v, "******")
	for i, p := range parts {
		if py.Strip(p) == "" {
			if i != 0 && i != len(parts)-1 {
				return false, nil
			}
		} else {
			valid = append(valid, p)
		}
	}
	return len(valid) == 2 && py.Strip(valid[0]) != py.Strip(valid[1]), nil
}

func repeatPrompt(a *args) checker {
	p, ok := a.kw["prompt_to_repeat"].(string)
	if !ok {
		a.failf("prompt_to_repeat must be set (ValueError in lm-eval)")
	}
	want := py.Lower(py.Strip(p))
	return func(v string) (bool, error) { return strings.HasPrefix(py.Lower(py.Strip(v)), want), nil }
}

func endChecker(a *args) checker {
	want := py.Lower(py.Strip(a.str("end_phrase", true)))
	return func(v string) (bool, error) {
		return strings.HasSuffix(py.Lower(strings.Trim(py.Strip(v), `"`)), want), nil
	}
}

func quotation(v string) (bool, error) {
	v = py.Strip(v)
	return utf8.RuneCountInString(v) > 1 && v[0] == '"' && v[len(v)-1] == '"', nil
}

func noComma(v string) (bool, error) { return !strings.Contains(v, ","), nil }

// countWords is instructions_util.count_words: nltk's RegexpTokenizer(r"\w+").
func countWords(v string) int {
	n, in := 0, false
	for _, r := range v {
		w := isWord(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// searchWord is re.search(r"\b" + word + r"\b", v, re.IGNORECASE) with
// Python's Unicode word boundaries; re is the word's own pattern.
func searchWord(re *regexp.Regexp, v string) bool {
	for start := 0; start <= len(v); {
		m := re.FindStringIndex(v[start:])
		if m == nil {
			return false
		}
		b, e := start+m[0], start+m[1]
		if boundary(v, b) && boundary(v, e) {
			return true
		}
		if b >= len(v) {
			return false
		}
		_, size := utf8.DecodeRuneInString(v[b:])
		start = b + size
	}
	return false
}

// boundary is \b at byte offset i of v.
func boundary(v string, i int) bool {
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(v[:i])
		before = isWord(r)
	}
	if i < len(v) {
		r, _ := utf8.DecodeRuneInString(v[i:])
		after = isWord(r)
	}
	return before != after
}

// looseVariants are the responses utils.py's loose test tries, in order.
func looseVariants(r string) []string {
	lines := strings.Split(r, "\n")
	join := func(ls []string) string { return py.Strip(strings.Join(ls, "\n")) }
	first := join(lines[1:])
	last := join(lines[:len(lines)-1])
	both := ""
	if len(lines) > 2 {
		both = join(lines[1 : len(lines)-1])
	}
	noStar := func(s string) string { return strings.ReplaceAll(s, "*", "") }
	return []string{r, noStar(r), first, last, both, noStar(first), noStar(last), noStar(both)}
}
