package tasks

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goeval/goeval/internal/py"
)

// multi_choice_regex: lm-eval's MultiChoiceRegexFilter, which extracts a
// letter answer "(A)", "(B)", … from a generation: the task's regex first;
// else the text of one of the document's "choices" (after the ignore
// options), mapped to its letter; else ":" followed by a bare letter.

type mcRegex struct {
	re                     *py.Regexp
	group                  int
	fallback               string
	ignoreCase, ignorePunc bool
	ignore                 []*py.Regexp
}

func (r *cfgReader) multiChoiceStep(key string, m *py.Map[any], allow func(...string) bool) filterStep {
	if !allow("regex_pattern", "group_select", "fallback", "ignore_case", "ignore_punctuation", "regexes_to_ignore") {
		return nil
	}
	f := &mcRegex{}
	pat, group, fallback := r.regexArgs(key, m)
	f.group, f.fallback = group, fallback
	f.ignoreCase, _ = pyTruth(m.Value("ignore_case"))
	f.ignorePunc, _ = pyTruth(m.Value("ignore_punctuation"))
	if v := m.Value("regexes_to_ignore"); v != nil {
		res, err := yamlStrings(v, "a list of regular expressions", false)
		if err != nil {
			r.failf(key+".regexes_to_ignore", "%v", err)
			return nil
		}
		for _, s := range res {
			re, err := py.Compile(s)
			if err != nil {
				r.failf(key+".regexes_to_ignore", "%v", err)
				return nil
			}
			f.ignore = append(f.ignore, re)
		}
	}
	var err error
	if f.re, err = py.Compile(pat); err != nil {
		r.failf(key+".regex_pattern", "%v", err)
		return nil
	}
	return f.apply
}

// apply filters one response of doc.
func (f *mcRegex) apply(resp string, doc Doc) (string, error) {
	choices, err := strList(doc["choices"], "choices")
	if err != nil {
		return "", fmt.Errorf("multi_choice_regex reads the document's choices: %w", err)
	}
	var alts, letters []string
	toLetter, bare := map[string]string{}, map[string]string{}
	for i, c := range choices {
		letter := string(rune('A' + i))
		m := f.ignores(py.Strip(c))
		alts = append(alts, pyEscape(m))
		toLetter[m] = "(" + letter + ")"
		letters = append(letters, letter)
		bare[letter] = "(" + letter + ")"
	}
	sort.SliceStable(alts, func(i, j int) bool { return utf8.RuneCountInString(alts[i]) > utf8.RuneCountInString(alts[j]) })
	byText, err := py.Compile(strings.Join(alts, "|"))
	if err != nil {
		return "", fmt.Errorf("multi_choice_regex: %w", err)
	}
	byLetter, err := py.Compile(`:[\s]*(` + strings.Join(letters, "|") + `)`)
	if err != nil {
		return "", fmt.Errorf("multi_choice_regex: %w", err)
	}
	match, err := f.find(f.re, resp, nil)
	if err == nil && match == "" {
		match, err = f.find(byText, f.ignores(resp), toLetter)
		if err == nil && match == "" {
			match, err = f.find(byLetter, resp, bare)
		}
	}
	if err != nil {
		return "", err
	}
	if match == "" {
		return f.fallback, nil
	}
	return match, nil
}

// find is find_match: the group_select-th match (its first non-empty
// group), stripped and converted; "" when nothing matches.
func (f *mcRegex) find(re *py.Regexp, resp string, convert map[string]string) (string, error) {
	all := re.FindAll(resp)
	if len(all) == 0 {
		return "", nil
	}
	i := f.group
	if i < 0 {
		i += len(all)
	}
	if i < 0 || i >= len(all) {
		return "", fmt.Errorf("multi_choice_regex: group_select %d, but the response has %d matches", f.group, len(all))
	}
	m := ""
	for _, g := range all[i] {
		if g != "" {
			m = g
			break
		}
	}
	m = py.Strip(m)
	if c, ok := convert[m]; ok && m != "" {
		m = c
	}
	return m, nil
}

// ignores applies regexes_to_ignore, ignore_case and ignore_punctuation
// (every Unicode punctuation character removed).
func (f *mcRegex) ignores(s string) string {
	for _, re := range f.ignore {
		s = re.Sub(s, "")
	}
	if f.ignoreCase {
		s = py.Lower(s)
	}
	if f.ignorePunc {
		s = strings.Map(func(r rune) rune {
			if unicode.IsPunct(r) {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// pyEscape is Python's re.escape: a backslash before each of
// ()[]{}?*+-|^$\.&~# and whitespace \t\n\r\v\f and space.
func pyEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
