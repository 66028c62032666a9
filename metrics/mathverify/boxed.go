package mathverify

import (
	"strings"
	"unicode"
)

var validSeparatorRe = mustRe(`\b(and|or)\b|,|;`, false)

// extractBoxedContent is math_normalization's extract_boxed_content: the
// \boxed{} / \fbox{} contents from the right, joined by commas ("all"), or
// the last ones close together or separated by "and"/","/";" ("last").
// Positions are code points, as in Python.
func extractBoxedContent(text string, mode string) string {
	rs := []rune(text)
	var results []string
	cur := len(rs)
	lastStart := -1
	maxPos := len(rs)
	for {
		bi := rfind(rs, []rune(`\boxed`), cur)
		fi := rfind(rs, []rune(`\fbox`), cur)
		if bi < 0 && fi < 0 {
			break
		}
		start, cmdEnd := fi, fi+5
		if bi > fi {
			start, cmdEnd = bi, bi+6
		}
		next := cmdEnd
		for next < maxPos && unicode.IsSpace(rs[next]) {
			next++
		}
		if next >= maxPos {
			break
		}
		if rs[next] != '{' {
			if len(results) == 0 {
				results = append(results, string(rs[next:]))
			}
			break
		}
		end := closingBrace(rs, next, maxPos)
		if end < 0 {
			if len(results) == 0 {
				results = append(results, string(rs[next:]))
			}
			break
		}
		content := pyStrip(string(rs[next+1 : end]))
		if mode == "last" && lastStart >= 0 {
			prev := ""
			if len(results) > 0 {
				prev = results[len(results)-1]
			}
			if !shouldExtractBoxed(rs, content, prev, end, lastStart) {
				break
			}
		}
		if len(results) == 0 || results[len(results)-1] != content {
			results = append(results, content)
		}
		lastStart = start
		maxPos = start
		cur = start
	}
	if len(results) == 0 {
		return text
	}
	for i, j := 0, len(results)-1; i < j; i, j = i+1, j-1 {
		results[i], results[j] = results[j], results[i]
	}
	return strings.Join(results, ",")
}

// rfind is str.rfind(sub, 0, end) on runes.
func rfind(rs, sub []rune, end int) int {
	for i := end - len(sub); i >= 0; i-- {
		match := true
		for j := range sub {
			if rs[i+j] != sub[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// closingBrace finds the brace closing the one at open, before maxPos.
func closingBrace(rs []rune, open, maxPos int) int {
	depth := 1
	for i := open + 1; i < maxPos; i++ {
		switch rs[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func shouldExtractBoxed(rs []rune, boxed, next string, boxedEnd, nextStart int) bool {
	var between []rune
	if boxedEnd+1 < nextStart {
		between = rs[boxedEnd+1 : nextStart]
	}
	if len(between) < 10 {
		return true
	}
	return next != boxed && len(between) < 70 && validSeparatorRe.search(string(between))
}
