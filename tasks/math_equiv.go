package tasks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// MATH answer handling shared by hendrycks_math and minerva_math
// (lm_eval/tasks/{hendrycks,minerva}_math/utils.py).

// lastBoxedOnly is last_boxed_only_string; ok=false where Python returns None.
func lastBoxedOnly(s string) (string, bool) {
	if strings.Contains(s, "\\boxed ") {
		parts := strings.Split(s, "\\boxed ")
		return "\\boxed " + strings.Split(parts[len(parts)-1], "$")[0], true
	}
	idx := strings.LastIndex(s, "\\boxed")
	if idx < 0 {
		if idx = strings.LastIndex(s, "\\fbox"); idx < 0 {
			return "", false
		}
	}
	depth := 0
	for i := idx; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[idx : i+1], true
			}
		}
	}
	return "", false
}

// removeBoxed is remove_boxed; ok=false where Python's asserts fail.
func removeBoxed(s string) (string, bool) {
	if strings.Contains(s, "\\boxed ") {
		return strings.TrimPrefix(s, "\\boxed "), strings.HasPrefix(s, "\\boxed ")
	}
	if !strings.HasPrefix(s, "\\boxed{") || !strings.HasSuffix(s, "}") || len(s) < len("\\boxed{}") {
		return "", false
	}
	return s[len("\\boxed{") : len(s)-1], true
}

// boxedAnswer is remove_boxed(last_boxed_only_string(solution)).
func boxedAnswer(solution string) (string, error) {
	b, ok := lastBoxedOnly(solution)
	if !ok {
		return "", fmt.Errorf("solution has no \\boxed{...} answer")
	}
	a, ok := removeBoxed(b)
	if !ok {
		return "", fmt.Errorf("solution's boxed answer %q is malformed", b)
	}
	return a, nil
}

// stripString is hendrycks_math's strip_string; ok=false where Python
// raises (the caller then compares the raw strings).
func stripString(s string) (string, bool) {
	s = replacePairs(s, "\n", "", "\\!", "", "\\\\", "\\", "tfrac", "frac", "dfrac", "frac",
		"\\left", "", "\\right", "", "^{\\circ}", "", "^\\circ", "", "\\$", "")
	if strings.Contains(s, "\\text{ ") {
		parts := strings.Split(s, "\\text{ ")
		if len(parts) != 2 {
			return "", false
		}
		s = parts[0]
	}
	s = replacePairs(s, "\\%", "", " .", " 0.", "{.", "{0.")
	if s == "" {
		return s, true
	}
	if s[0] == '.' {
		s = "0" + s
	}
	if parts := strings.Split(s, "="); len(parts) == 2 && len([]rune(parts[0])) <= 2 {
		s = parts[1]
	}
	s, ok := fixSqrt(s)
	if !ok {
		return "", false
	}
	s = strings.ReplaceAll(s, " ", "")
	if s, ok = fixFracs(s); !ok {
		return "", false
	}
	if s == "0.5" {
		s = "\\frac{1}{2}"
	}
	return fixASlashB(s)
}

func fixSqrt(s string) (string, bool) {
	if !strings.Contains(s, "\\sqrt") {
		return s, true
	}
	parts := strings.Split(s, "\\sqrt")
	out := parts[0]
	for _, p := range parts[1:] {
		if p == "" {
			return "", false // IndexError in Python
		}
		r := []rune(p)
		if r[0] != '{' {
			out += "\\sqrt{" + string(r[0]) + "}" + string(r[1:])
		} else {
			out += "\\sqrt" + p
		}
	}
	return out, true
}

func fixFracs(s string) (string, bool) {
	parts := strings.Split(s, "\\frac")
	out := parts[0]
	for _, p := range parts[1:] {
		out += "\\frac"
		r := []rune(p)
		if len(r) == 0 {
			return "", false // IndexError
		}
		if r[0] == '{' {
			out += p
			continue
		}
		if len(r) < 2 {
			return s, true
		}
		a, b, post := string(r[0]), string(r[1]), string(r[2:])
		if b != "{" {
			out += "{" + a + "}{" + b + "}" + post
		} else {
			out += "{" + a + "}" + b + post
		}
	}
	return out, true
}

var pyIntRe = regexp.MustCompile(`^[ \t\n\r\f\v]*[+-]?[0-9](_?[0-9])*[ \t\n\r\f\v]*$`)

func fixASlashB(s string) (string, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 2 {
		return s, true
	}
	if !pyIntRe.MatchString(parts[0]) || !pyIntRe.MatchString(parts[1]) {
		return "", false // ValueError from int()
	}
	a, err1 := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(parts[0]), "_", ""))
	b, err2 := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(parts[1]), "_", ""))
	if err1 != nil || err2 != nil || s != fmt.Sprintf("%d/%d", a, b) {
		return s, true
	}
	return fmt.Sprintf("\\frac{%d}{%d}", a, b), true
}

// hendrycksEquiv is hendrycks_math's is_equiv.
func hendrycksEquiv(a, b string) bool {
	sa, ok1 := stripString(a)
	sb, ok2 := stripString(b)
	if !ok1 || !ok2 {
		return a == b
	}
	return sa == sb
}

var (
	minervaSubs = []string{"an ", "", "a ", "", ".$", "$", "\\$", "", `\ `, "", " ", "",
		"mbox", "text", ",\\text{and}", ",", "\\text{and}", ",", "\\text{m}", "\\text{}"}
	minervaRemoved = []string{"square", "ways", "integers", "dollars", "mph", "inches", "ft", "hours", "km",
		"units", "\\ldots", "sue", "points", "feet", "minutes", "digits", "cents", "degrees", "cm", "gm",
		"pounds", "meters", "meals", "edges", "students", "childrentickets", "multiples",
		"\\text{s}", "\\text{.}", "\\text{\ns}", "\\text{}^2", "\\text{}^3", "\\text{\n}", "\\text{}",
		`\mathrm{th}`, `^\circ`, `^{\circ}`, `\;`, `,\!`, "{,}", `"`, "\\dots"}
	minervaWordRes = map[string]*py.Regexp{}
	cmdSplitRe     = py.MustCompile(`(\\[a-zA-Z]+)`)
	minervaRes     = [][2]string{
		{`(.*?)(\$)(.*?)(\$)(.*)`, `$\3$`},
		{`(\\text\{)(.*?)(\})`, `\2`},
		{`(\\textbf\{)(.*?)(\})`, `\2`},
		{`(\\overline\{)(.*?)(\})`, `\2`},
		{`(\\boxed\{)(.*)(\})`, `\2`},
		{`(frac)([^{])(.)`, `frac{\2}{\3}`},
		{`(sqrt)(\[[^\]]*\])(\w)`, `\1\2{\3}`},
		{`(sqrt)(?!\[)([^{])`, `sqrt{\2}`},
	}
	minervaCompiled []*py.Regexp
	thousandsRe     = py.MustCompile(`^-?\d{1,3}(,\d{3})+\Z`)
)

func init() {
	for _, e := range minervaRemoved {
		if isAlpha(e) {
			minervaWordRes[e] = py.MustCompile(`(?<!\\)\b` + e + `\b`)
		}
	}
	for _, p := range minervaRes {
		minervaCompiled = append(minervaCompiled, py.MustCompile(p[0]))
	}
}

func isAlpha(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

// normalizeFinalAnswer is minerva_math's normalize_final_answer (lm-eval
// 0.4.13 version, with the word-boundary unit removal).
func normalizeFinalAnswer(s string) string {
	parts := strings.Split(s, "=")
	s = parts[len(parts)-1]
	for _, e := range minervaRemoved {
		if re, ok := minervaWordRes[e]; ok {
			s = re.Sub(s, "")
		}
	}
	s = replacePairs(s, minervaSubs...)
	for _, e := range minervaRemoved {
		if !isAlpha(e) {
			s = strings.ReplaceAll(s, e, "")
			continue
		}
		segs := cmdSplitRe.Split(s)
		for i := 0; i < len(segs); i += 2 {
			segs[i] = strings.ReplaceAll(segs[i], e, "")
		}
		s = strings.Join(segs, "")
	}
	for i, re := range minervaCompiled {
		s = re.Sub(s, minervaRes[i][1])
	}
	s = strings.ReplaceAll(s, "$", "")
	if thousandsRe.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	return s
}
