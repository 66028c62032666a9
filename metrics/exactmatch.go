package metrics

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/goeval/goeval/internal/py"
)

// ExactMatchOptions are exact_match's metric kwargs in a task's metric_list.
type ExactMatchOptions struct {
	RegexesToIgnore   []string // Python re patterns; each is removed (re.sub(s, "", x)) in order
	IgnoreCase        bool
	IgnorePunctuation bool // removes ASCII string.punctuation
	IgnoreNumbers     bool // removes ASCII string.digits
}

// ExactMatcher scores predictions against references like lm-eval's
// exact_match_hf_evaluate, with its patterns compiled once.
type ExactMatcher struct {
	opts    ExactMatchOptions
	regexes []*py.Regexp
}

// NewExactMatcher compiles the options' regexes.
func NewExactMatcher(o ExactMatchOptions) (*ExactMatcher, error) {
	m := &ExactMatcher{opts: o}
	for _, s := range o.RegexesToIgnore {
		re, err := py.Compile(s)
		if err != nil {
			return nil, err
		}
		m.regexes = append(m.regexes, re)
	}
	return m, nil
}

// Score returns 1.0 if pred equals ref after normalisation, else 0.0.
//
// numpy traps reproduced: the strings live in numpy fixed-width unicode
// arrays, so trailing NUL characters are dropped and np.char.lower/upper
// results are truncated to the input's length in code points ("İ".lower() is
// two code points, so "İX" lowercases to "i̇", losing the "x").
func (m *ExactMatcher) Score(pred, ref string) float64 {
	pred, ref = m.normalize(pred), m.normalize(ref)
	if pred == ref {
		return 1
	}
	return 0
}

func (m *ExactMatcher) normalize(s string) string {
	for _, re := range m.regexes {
		s = re.Sub(s, "")
	}
	width := utf8.RuneCountInString(s)
	s = strings.TrimRight(s, "\x00")
	if m.opts.IgnoreCase {
		s = truncateRunes(py.Lower(s), width)
	}
	if m.opts.IgnorePunctuation {
		s = strings.Map(func(r rune) rune {
			if r < 128 && strings.ContainsRune(pyPunctuation, r) {
				return -1
			}
			return r
		}, s)
	}
	if m.opts.IgnoreNumbers {
		s = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	return strings.TrimRight(s, "\x00")
}

// pyPunctuation is Python's string.punctuation.
const pyPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

var matcherCache sync.Map // key: options fingerprint → *ExactMatcher

// ExactMatch scores one prediction against one reference (see
// ExactMatcher.Score); matchers are cached per option set.
func ExactMatch(pred, ref string, o ExactMatchOptions) (float64, error) {
	key := strings.Join(o.RegexesToIgnore, "\x00") + "\x01" + boolKey(o.IgnoreCase, o.IgnorePunctuation, o.IgnoreNumbers)
	if m, ok := matcherCache.Load(key); ok {
		return m.(*ExactMatcher).Score(pred, ref), nil
	}
	m, err := NewExactMatcher(o)
	if err != nil {
		return 0, err
	}
	matcherCache.Store(key, m)
	return m.Score(pred, ref), nil
}

func boolKey(bs ...bool) string {
	var b strings.Builder
	for _, v := range bs {
		if v {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}
