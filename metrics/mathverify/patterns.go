package mathverify

import (
	"fmt"
	"strings"
)

// The extraction regexes of math_verify.parser (lazy_latex_regex,
// lazy_expr_regex, lazy_string_regex), in .NET syntax, with the same
// priorities.

type prioRe struct {
	re   *pyRe
	prio int
}

func latexEnvPattern(prefix string, boxed bool) string {
	percent := fmt.Sprintf(`(?<%spercent>(?:\\?%%|[Pp]ercent|[Pp]ercentage|[Pp]ct))`, prefix)
	dd := `(?:[^$]|\$(?!\$))`
	db := `(?:[^\\]|\\(?!\]))`
	id := `(?:\\[$]|[^\n$])`
	ip := `(?:[^\\\n]|\\(?!\)))`
	ib := `[^\n\]\[]`
	wrap := func(c string) string {
		if boxed {
			return c + `*?\\boxed{` + c + `+?}` + c + `*?`
		}
		return c + `+?`
	}
	pats := []string{
		`(?<!\\)\$\$(?<` + prefix + `latexDisplayDollar>` + wrap(dd) + `)(?<!\\)\$\$`,
		`(?<!\\)\\\[(?<` + prefix + `latexDisplayBracket>` + wrap(db) + `)(?<!\\)\\\]`,
		`(?<!\\|\d)\$(?<` + prefix + `latexInlineDollar>` + wrap(id) + `)(?<!\\)\$`,
		`(?<!\\)\\\((?<` + prefix + `latexInlineParenthesis>` + wrap(ip) + `)(?<!\\)\\\)`,
		`\s\[(?<` + prefix + `latexInlineBracket>` + wrap(ib) + `)\]\s`,
	}
	if !boxed {
		num := `-?\d+(?:[.,]\d+)?`
		pats = append(pats, `(?<`+prefix+`latexFraction>-?\\frac{`+num+`}{`+num+`})`)
	}
	return `(?:(?:` + strings.Join(pats, "|") + `)\s*` + percent + `?)`
}

func latexRegexes(c LatexConfig) []prioRe {
	var next strings.Builder
	for i := 1; i <= 5; i++ {
		next.WriteString(`(?:\s*(?:,?and|,?or|,)\s*` + latexEnvPattern(fmt.Sprintf("next%d_", i), false) + `)?`)
	}
	envs := `(?:` + latexEnvPattern("first_", false) + next.String() + `)`
	answer := `(?i:answer)`
	pats := []struct {
		p    string
		prio int
	}{
		{`(?i:final answer is)\:?\s*` + envs + `\.?\s?I hope`, 0},
		{`(?i:final answer.{0,100}?)\s+is\:?\s*` + envs, 50},
		{answer + `:.{0,50}?` + envs, 100},
		{answer + `.{0,50}?` + envs, 200},
	}
	if c.TryExtractWithoutAnchor {
		pats = append(pats, struct {
			p    string
			prio int
		}{envs, 300})
	}
	if c.BoxedMatchPriority >= 0 {
		var nb strings.Builder
		for i := 1; i <= 5; i++ {
			nb.WriteString(`\s*(?:\s*(?:,?and|,?or|,)\s*` + latexEnvPattern(fmt.Sprintf("next%d_", i), true) + `)?`)
		}
		pats = append(pats, struct {
			p    string
			prio int
		}{latexEnvPattern("first_", true) + nb.String(), c.BoxedMatchPriority},
			struct {
				p    string
				prio int
			}{`(?<first_latexBoxed>\\boxed{.+})`, c.BoxedMatchPriority})
	}
	out := make([]prioRe, len(pats))
	for i, p := range pats {
		out[i] = prioRe{cachedRe(p.p, true), p.prio}
	}
	return out
}

const currencyUnits = `\$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₩₪₫₭₮₯₰₱₲₳₴₵₶₷₸₹₺₻₼₽₾₿`

func exprRegexes(c ExprConfig) []prioRe {
	number := `(?<!\d)(?:` +
		`(?<integer1>-?[1-9]\d{0,2}(?:[ ,]\d{3})+)(?<decimal1>\.\d+)?|` +
		`(?<integer2>-?\d+)(?<decimal2>[.,]\d+)|` +
		`(?<decimal3>\.\d+)|` +
		`(?<integer3>-?\d+)` +
		`)(?<percent>\s*(?:%|[Pp]ercent|\s*[Pp]ercentage|\s*[Pp]ct))?`
	ops := `+\-*×/^()÷`
	chars := `[\d.\s` + ops + `]`
	expr := `(?<expr>-?\(?-?\d` + chars + `*[` + ops + `]` + chars + `+\)?)`
	prefix := `(?:^|\s|=)(?:\*\*)?`
	suffix := `(?:\*\*)?(?:\.|,|:|\s|\)|\$|$)`
	withAnchors := `(?:` + prefix + expr + suffix + `)`
	numAnchors := `(?:` + prefix + `[` + currencyUnits + `]?` + number + `)`
	either := `(?:` + withAnchors + `|` + numAnchors + `)`
	answer := `(?i:answer)`
	pats := []prioRe{
		{cachedRe(`(?i:final answer is)\:?\s*`+either+`\.?\s?I hope`, false), 0},
		{cachedRe(`(?i:final answer.{0,100}?)\s+is\:?`+either, false), 50},
		{cachedRe(answer+`:(?:.{0,100}=\s*|.{0,50}?)`+either+`(?!\s*=)`, false), 100},
		{cachedRe(answer+`(?:.{0,100}=\s*|.{0,50}?)`+either+`(?!\s*=)`, false), 200},
	}
	if c.TryExtractWithoutAnchor {
		pats = append(pats, prioRe{cachedRe(withAnchors, false), 300}, prioRe{cachedRe(numAnchors, false), 300})
	}
	return pats
}

func stringRegexes(c StringConfig) []prioRe {
	var keys []string
	for _, s := range c.Strings {
		keys = append(keys, regexpQuote(s))
	}
	k := `(?<string_keys>` + strings.Join(keys, "|") + `)`
	suffix := `(?:\*\*)?(?:\.|,|:|\s|$)`
	ans := `(^|\s)(?:\*\*)?` + k + suffix
	start := `^(?:\*\*)?` + k + suffix
	word := `(?i:answer)`
	pats := []prioRe{
		{cachedRe(`(?i:final answer is)\:?\s*`+k+`\.?\s?I hope`, false), 0},
		{cachedRe(`(?i:final answer.{0,100}?)\s+is\:?\s*`+k, false), 50},
		{cachedRe(word+`:.{0,50}?`+ans, false), 100},
		{cachedRe(word+`.{0,50}?`+ans, false), 200},
	}
	if c.TryExtractWithoutAnchor {
		pats = append(pats, prioRe{cachedRe(start, false), 250}, prioRe{cachedRe(ans, false), 300})
	}
	return pats
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$#&-~ `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
