package mathverify

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
)

// NormalizationConfig is latex2sympy2_extended's NormalizationConfig: which
// clean-ups normalize_latex applies before parsing.
type NormalizationConfig struct {
	BasicLatex         bool
	Units              bool
	MalformedOperators bool
	Nits               bool
	Boxed              string // "all", "last" or "none"
	Equations          bool
}

var (
	rLeft  = mustRe(`\\m?left(\\\{|\{|\\\||\||\[|\(|\\rbracl|\\lgroup|\\lbrace|\\lbrack|\\vert|\\lvert|\\lceil|\\lfloor|\\vert|\\lvert|\\langle|\\llcorner|\\ulcorner)`, false)
	rRight = mustRe(`\\m?right(\\\}|\}|\\\||\||\]|\)|\\rbrack|\\rgroup|\\rbrace|\\rbrack|\\vert|\\rvert|\\rceil|\\rfloor|\\vert|\\rvert|\\rangle|\\lrcorner|\\urcorner)`, false)

	toRemoveRe           = mustRe(`\\mathrm\{th\}|\\!\s*|\\text\s*\{\s*\}|\\text\s*\{\s*\}|\\\$|\$|(?<!\\)["']|\\displaystyle`, false)
	commandSlashFixRe    = mustRe(`\\\\(?=[a-zA-Z])`, false)
	permutationRe        = mustRe(`\(([a-zA-Z0-9+\-*/\\ ]+?)\)_{([a-zA-Z0-9+\-*/\\ ]+?)}`, false)
	unitSuperscriptRe    = mustRe(`(\\(?:text|mbox){.*?})(\^\d|\{\^\d\})?$`, false)
	equationSplitRe      = mustRe(`(?<!\\|\<|\!|\>)=`, false)
	malformedOperatorRes = []struct {
		re   *pyRe
		tmpl string
	}{
		{mustRe(`\^\s?\((.*?)\)`, false), `^{\1}`},
		{mustRe(`sqrt\s?\((.*?)\)`, false), `\sqrt{\1}`},
		{mustRe(`\\frac\s?(\d)\s?(\d+)`, false), `\frac{\1}{\2}`},
		{mustRe(`\\log_\s?(\d)\s?(\d+)`, false), `\log_{\1}{\2}`},
		{mustRe(`\\frac\s?{(.*?)}\s?(\d)`, false), `\frac{\1}{\2}`},
		{mustRe(`\\frac\s?(\d)\s?{(.*?)}`, false), `\frac{\1}{\2}`},
		{mustRe(`\\sqrt\s?(\d)`, false), `\sqrt{\1}`},
	}
)

// toReplace are math_normalization's to_replace_patterns: (name, pattern,
// replacement), one alternation where the first matching name wins.
var toReplace = [][3]string{
	{"math", `\\math(?:rm|it|bf)`, `\text`},
	{"text", `\\text(?:normal|bf|it|rm)`, `\text`},
	{"frac", `\\(?:d|t|c)frac`, `\frac`},
	{"decimal_space", `\s\.`, ` 0.`},
	{"decimal_brace", `\{\.`, `{0.`},
	{"approx", `\~\=`, `\approx`},
	{"comma", `\s*\{\s*,\s*\}`, `,`},
	{"and_or", `(?<![a-zA-Z])(,?\s*(?:and|or))(?![a-zA-Z])`, `,`},
	{"and_or_text", `(,?\s*\\text{\s*(?:and|or)\s*})`, `,`},
	{"backslash_space", `(?<!\\)\\\s`, ` `},
	{"infinity", `infinity`, `\infty`},
	{"dot", `,?(\\ldots)`, ` `},
	{"percentage", `\s*\bpercentage\b`, `\%`},
	{"percentage_in_text", `\\text{percentage}`, `%`},
	{"percent", `\s*\bpercent\b`, `\%`},
	{"percent_in_text", `\\text{percent}`, `%`},
	{"pct", `\s*\bpct\b`, `\%`},
	{"pct_in_text", `\\text{pct}`, `%`},
	{"inf", `((?<!\\)inf(?!inity))`, `\infty`},
	{"sqrt", ` sqrt`, `\sqrt`},
}

var toReplaceRe *pyRe

func init() {
	var alts []string
	for _, p := range toReplace {
		alts = append(alts, "(?<"+p[0]+">"+p[1]+")")
	}
	toReplaceRe = mustRe(strings.Join(alts, "|"), false)
}

func replaceInLatex(s string) string {
	return toReplaceRe.sub(s, func(m *regexp2.Match) string {
		for _, p := range toReplace {
			if g := m.GroupByName(p[0]); g != nil && len(g.Captures) > 0 {
				return p[2]
			}
		}
		return m.String()
	})
}

// normalizeLatex is normalize_latex.
func normalizeLatex(text string, c NormalizationConfig) string {
	if c.Boxed == "all" || c.Boxed == "last" {
		text = extractBoxedContent(text, c.Boxed)
	}
	if c.BasicLatex {
		text = strings.ReplaceAll(text, `\mathrm{T}`, "T")
		text = strings.ReplaceAll(strings.ReplaceAll(text, `\mathrm{d}`, "d"), `{\rm d}`, "d")
		text = strings.ReplaceAll(strings.ReplaceAll(text, `\left[\begin{matrix}`, `\begin{bmatrix}`), `\end{matrix}\right]`, `\end{bmatrix}`)
		if strings.Contains(text, "left") {
			text = rLeft.subGroups(text, `\1`)
		}
		if strings.Contains(text, "right") {
			text = rRight.subGroups(text, `\1`)
		}
		if strings.Contains(text, ")_{") {
			text = permutationRe.subGroups(text, `\frac{(\1)!}{((\1)-(\2))!}`)
		}
		if strings.ContainsAny(text, "$\\\"'") {
			text = toRemoveRe.subGroups(text, "")
		}
		text = replaceInLatex(text)
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\n", " "), "\t", " ")
		if !strings.Contains(text, "matrix") {
			text = commandSlashFixRe.subGroups(text, `\`)
		}
	}
	if c.Equations && !strings.Contains(text, ",") && !strings.Contains(text, ";") {
		if parts := equationSplitRe.split(text); len(parts) > 2 {
			text = parts[len(parts)-1]
		}
	}
	if c.Units {
		if strings.Contains(text, `\text{`) || strings.Contains(text, `\mbox{`) {
			if t := pyStrip(unitSuperscriptRe.subGroups(text, "")); t != "" && t != text {
				text = t
			}
		}
		for i := 0; i < 2; i++ {
			if t := removeUnit(text); t != "" && t != text {
				text = t
			}
		}
	}
	if c.Nits {
		if strings.HasPrefix(text, ".") {
			text = "0" + text
		}
		if text == "0.5" {
			text = `\frac{1}{2}`
		}
	}
	if c.MalformedOperators {
		for _, m := range malformedOperatorRes {
			text = m.re.subGroups(text, m.tmpl)
		}
		text = strings.ReplaceAll(text, " sqrt", `\sqrt`)
		text = fixSqrt(text)
		text = fixFracs(text)
		text = fixASlashB(text)
	}
	return pyStrip(text)
}

// removeUnit is units_regex.sub(r"\1", text). The regex is anchored at
// the end, so its leftmost match starts at the first position of the tail
// where a digit, "}" or space is followed by optional space, a unit and
// optional trailing space; that match becomes its first character.
func removeUnit(text string) string {
	rs := []rune(text)
	i := len(rs)
	for i > 0 && unicode.IsSpace(rs[i-1]) {
		i--
	}
	i -= 24
	if i < 0 {
		i = 0
	}
	for i > 0 && unicode.IsSpace(rs[i-1]) {
		i--
	}
	if i > 0 {
		i--
	}
	for ; i < len(rs); i++ {
		if c := rs[i]; !(isDigitRune(c) || c == '}' || unicode.IsSpace(c)) {
			continue
		}
		k := i + 1
		for k < len(rs) && unicode.IsSpace(rs[k]) {
			k++
		}
		for ; k > i; k-- {
			if isUnitTail(rs[k:]) {
				return string(rs[:i+1])
			}
		}
	}
	return text
}

// isUnitTail: rs is a unit (its "." matching any character), an optional
// plural "s" or "es", and trailing space.
func isUnitTail(rs []rune) bool {
	for len(rs) > 0 && unicode.IsSpace(rs[len(rs)-1]) {
		rs = rs[:len(rs)-1]
	}
	for _, u := range unitRunes {
		for _, suf := range []string{"", "s", "es"} {
			if len(rs) == len(u)+len(suf) && wildcardPrefix(u, rs) && string(rs[len(u):]) == suf {
				return true
			}
		}
	}
	return false
}

var unitRunes = func() [][]rune {
	out := make([][]rune, len(unitNames))
	for i, u := range unitNames {
		out[i] = []rune(u)
	}
	return out
}()

func wildcardPrefix(pat, rs []rune) bool {
	for i, c := range pat {
		if c != rs[i] && !(c == '.' && rs[i] != '\n') {
			return false
		}
	}
	return true
}

func isDigitRune(r rune) bool { return unicode.IsDigit(r) }

// fixSqrt is math_normalization's _fix_sqrt.
func fixSqrt(text string) string {
	if !strings.Contains(text, `\sqrt`) {
		return text
	}
	parts := strings.Split(text, `\sqrt`)
	out := parts[0]
	for _, p := range parts[1:] {
		p = strings.TrimLeftFunc(p, isPySpace)
		r := []rune(p)
		if len(r) > 0 && r[0] != '{' && r[0] != '[' {
			out += `\sqrt{` + string(r[0]) + "}" + string(r[1:])
		} else {
			out += `\sqrt` + p
		}
	}
	return out
}

// fixFracs is math_normalization's _fix_fracs.
func fixFracs(text string) string {
	parts := strings.Split(text, `\frac`)
	out := parts[0]
	for _, p := range parts[1:] {
		p = strings.TrimLeftFunc(p, isPySpace)
		out += `\frac`
		r := []rune(p)
		switch {
		case len(r) > 0 && r[0] == '{':
			out += p
		case len(r) < 2:
			return text
		case r[1] != '{':
			out += "{" + string(r[0]) + "}{" + string(r[1]) + "}" + string(r[2:])
		default:
			out += "{" + string(r[0]) + "}" + string(r[1]) + string(r[2:])
		}
	}
	return out
}

// fixASlashB is _fix_a_slash_b: "2/3" becomes \frac{2}{3}.
func fixASlashB(text string) string {
	parts := strings.Split(text, "/")
	if len(parts) != 2 {
		return text
	}
	a, err1 := pyInt(parts[0])
	b, err2 := pyInt(parts[1])
	if err1 != nil || err2 != nil || text != strconv.FormatInt(a, 10)+"/"+strconv.FormatInt(b, 10) {
		return text
	}
	return `\frac{` + strconv.FormatInt(a, 10) + "}{" + strconv.FormatInt(b, 10) + "}"
}

// pyInt is Python's int(str) for the texts fixASlashB sees.
func pyInt(s string) (int64, error) {
	s = strings.ReplaceAll(pyStrip(s), "_", "")
	return strconv.ParseInt(s, 10, 64)
}
