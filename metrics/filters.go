package metrics

import "github.com/goeval/goeval/internal/py"

// DefaultRegexFallback is lm-eval's RegexFilter fallback for no match.
const DefaultRegexFallback = "[invalid]"

// RegexFilter is lm-eval's "regex" filter: re.findall over the response,
// pick the match at GroupSelect (negative counts from the end, Python
// style), take the first non-empty group of a multi-group match, strip it.
type RegexFilter struct {
	re          *py.Regexp
	GroupSelect int
	Fallback    string
}

// NewRegexFilter compiles a Python pattern for a regex filter.
func NewRegexFilter(pattern string, groupSelect int, fallback string) (*RegexFilter, error) {
	re, err := py.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return &RegexFilter{re: re, GroupSelect: groupSelect, Fallback: fallback}, nil
}

// Apply filters one response. A GroupSelect outside the match list (an
// IndexError in lm-eval, which aborts the run) yields the fallback here.
func (f *RegexFilter) Apply(resp string) string {
	matches := f.re.FindAll(resp)
	if len(matches) == 0 {
		return f.Fallback
	}
	i := f.GroupSelect
	if i < 0 {
		i += len(matches)
	}
	if i < 0 || i >= len(matches) {
		return f.Fallback
	}
	groups := matches[i]
	if len(groups) == 1 { // whole match or the single group: a str in Python
		return py.Strip(groups[0])
	}
	for _, g := range groups { // a tuple: first non-empty element
		if g != "" {
			return py.Strip(g)
		}
	}
	return py.Strip(f.Fallback)
}

// ApplyAll filters every response of a document (its repeats).
func (f *RegexFilter) ApplyAll(resps []string) []string {
	out := make([]string, len(resps))
	for i, r := range resps {
		out[i] = f.Apply(r)
	}
	return out
}

// TakeFirst is lm-eval's "take_first" filter: the first of a document's
// responses ("" when there are none).
func TakeFirst(resps []string) string {
	if len(resps) == 0 {
		return ""
	}
	return resps[0]
}

// Lowercase is lm-eval's "lowercase" filter (Python str.lower).
func Lowercase(s string) string { return py.Lower(s) }

// Uppercase is lm-eval's "uppercase" filter (Python str.upper).
func Uppercase(s string) string { return py.Upper(s) }

// RemoveWhitespace is lm-eval's "remove_whitespace" filter (str.strip).
func RemoveWhitespace(s string) string { return py.Strip(s) }
