package mathverify

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Config is one extraction target: LatexConfig, ExprConfig or StringConfig.
type Config interface{ patterns() []prioRe }

// LatexConfig is math_verify's LatexExtractionConfig.
type LatexConfig struct {
	TryExtractWithoutAnchor bool
	BoxedMatchPriority      int // -1 disables \boxed matching
	Normalization           NormalizationConfig
}

// ExprConfig is math_verify's ExprExtractionConfig (plain numbers and
// arithmetic such as 1/2 or 3*4+5).
type ExprConfig struct{ TryExtractWithoutAnchor bool }

// StringConfig is math_verify's StringExtractionConfig (answer letters).
type StringConfig struct {
	Strings                 []string
	TryExtractWithoutAnchor bool
	Lowercase               bool
}

// DefaultLatexConfig is LatexExtractionConfig().
func DefaultLatexConfig() LatexConfig {
	return LatexConfig{TryExtractWithoutAnchor: true, BoxedMatchPriority: 50, Normalization: NormalizationConfig{
		BasicLatex: true, Units: true, MalformedOperators: true, Nits: true, Boxed: "all"}}
}

// DefaultExprConfig is ExprExtractionConfig().
func DefaultExprConfig() ExprConfig { return ExprConfig{TryExtractWithoutAnchor: true} }

// DefaultConfigs are parse()'s default extraction targets.
func DefaultConfigs() []Config { return []Config{DefaultLatexConfig(), DefaultExprConfig()} }

func (c LatexConfig) patterns() []prioRe {
	return cachedPatterns(c, func() []prioRe { return latexRegexes(c) })
}
func (c ExprConfig) patterns() []prioRe {
	return cachedPatterns(c, func() []prioRe { return exprRegexes(c) })
}
func (c StringConfig) patterns() []prioRe {
	return cachedPatterns(strings.Join(c.Strings, "\x00")+fmt.Sprint(c.TryExtractWithoutAnchor, c.Lowercase),
		func() []prioRe { return stringRegexes(c) })
}

var patternCache sync.Map // config → []prioRe

func cachedPatterns(key any, build func() []prioRe) []prioRe {
	if p, ok := patternCache.Load(key); ok {
		return p.([]prioRe)
	}
	p := build()
	patternCache.Store(key, p)
	return p
}

var reCache sync.Map // pattern → *pyRe

func cachedRe(p string, dotall bool) *pyRe {
	key := p
	if dotall {
		key = "s:" + p
	}
	if r, ok := reCache.Load(key); ok {
		return r.(*pyRe)
	}
	r := mustRe(p, dotall)
	reCache.Store(key, r)
	return r
}

// Answer is one element of Parse's result: a parsed expression, or (Expr
// nil) the text of the first match, which compares with strings only.
type Answer struct {
	Expr *Expr
	Str  string
}

// String describes the answer.
func (a Answer) String() string {
	if a.Expr == nil {
		return "str:" + a.Str
	}
	return a.Expr.String()
}

type pattern struct {
	re   *pyRe
	cfg  Config
	prio int
}

type found struct {
	s   span
	cfg Config
}

// Parse is math_verify.parse with fallback_mode="first_match" and
// extraction_mode="any_match": the first match (by priority, then from the
// right) that parses, followed by the text of the first match tried.
func Parse(text string, configs []Config) []Answer {
	var all []pattern
	for _, c := range configs {
		for _, p := range c.patterns() {
			all = append(all, pattern{p.re, c, p.prio})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].prio < all[j].prio })
	rs := []rune(text)
	var out []Answer
	var fallbacks []string
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].prio == all[i].prio {
			j++
		}
		var ms []found
		for _, p := range all[i:j] {
			for _, s := range p.re.finditer(rs) {
				ms = append(ms, found{s, p.cfg})
			}
		}
		sort.SliceStable(ms, func(a, b int) bool {
			if ms[a].s.end != ms[b].s.end {
				return ms[a].s.end > ms[b].s.end
			}
			return ms[a].s.start < ms[b].s.start
		})
		for _, m := range ms {
			a, str := extractMatch(m)
			if str != "" {
				fallbacks = append(fallbacks, str)
			}
			if a != nil {
				out = append(out, *a)
				break
			}
		}
		if len(out) > 0 {
			break
		}
		i = j
	}
	if len(fallbacks) > 0 {
		out = append(out, Answer{Str: fallbacks[0]})
	}
	return out
}

// extractMatch is extract_match: the parsed answer (nil when it does not
// parse) and the match's text for the fallback.
func extractMatch(m found) (*Answer, string) {
	var e *Expr
	var str string
	switch c := m.cfg.(type) {
	case LatexConfig:
		e, str = extractLatex(m.s, c)
	case ExprConfig:
		e, str = extractExpr(m.s)
	case StringConfig:
		s, _ := m.s.group("string_keys")
		if c.Lowercase {
			return &Answer{Str: strings.ToLower(s)}, s
		}
		return &Answer{Str: s}, s
	}
	if e == nil {
		return nil, str
	}
	return &Answer{Expr: e}, str
}

var latexGroupKinds = []string{"latexDisplayDollar", "latexDisplayBracket", "latexInlineDollar",
	"latexInlineParenthesis", "latexInlineBracket", "latexFraction", "latexBoxed"}

func extractLatex(s span, c LatexConfig) (*Expr, string) {
	var exprs []*Expr
	var strs []string
	for _, prefix := range []string{"first", "next1", "next2", "next3", "next4", "next5"} {
		for _, kind := range latexGroupKinds {
			latex, ok := s.group(prefix + "_" + kind)
			if !ok || latex == "" {
				continue
			}
			_, pct := s.group(prefix + "_percent")
			cfg := c.Normalization
			if kind == "latexBoxed" {
				cfg.Boxed = "last"
			}
			norm := normalizeLatex(latex, cfg)
			strs = append(strs, norm)
			e := parseLatexAnswer(norm)
			if e != nil && pct {
				e = percentOf(e)
			}
			exprs = append(exprs, e)
			break
		}
	}
	if len(exprs) == 0 {
		return nil, ""
	}
	if len(exprs) > 1 {
		all := true
		for _, e := range exprs {
			all = all && e != nil
		}
		if all {
			var items []*Expr
			for _, e := range exprs {
				if e.K == KFiniteSet {
					items = append(items, e.Args...)
				} else {
					items = append(items, e)
				}
			}
			return finiteSet(items...), strings.Join(strs, " and ")
		}
	}
	return exprs[0], strs[0]
}

var (
	complexRe = mustRe(`\\mathbb\{C\}|\\i\b|\bi\b|\\text\{i\}|\\mathrm\{i\}|\\imath\b|\\det|\\operatorname\{tr\}|\\operatorname\{rank\}|\\text\{rank\}|\\arg\{|\\Re\{|\\Im\{|\\operatorname\{Re\}|\\operatorname\{Im\}|\\text\{Re\}|\\text\{Im\}`, false)
	eqSplitRe = mustRe(`(?<!\\|\<|\!|\>)=`, false)
)

// parseLatexAnswer is parse_latex_cached: the whole string, else its last
// equation's right side; nil when neither parses.
func parseLatexAnswer(latex string) *Expr {
	if e, ok := parseLatex(latex, !complexRe.search(latex)); ok {
		return e
	}
	last := latex
	if !strings.Contains(latex, ",") && !strings.Contains(latex, ";") {
		if parts := eqSplitRe.split(latex); len(parts) > 2 {
			last = parts[len(parts)-1]
		}
	}
	if last != latex {
		if e, ok := parseLatex(last, !complexRe.search(last)); ok {
			return e
		}
	}
	return nil
}
