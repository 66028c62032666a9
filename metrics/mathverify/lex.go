package mathverify

import (
	"strings"
	"unicode/utf8"
)

// The LaTeX lexer of latex2sympy2_extended's PS.g4 grammar (ANTLR rules):
// at each position the longest match wins, ties go to the rule defined
// first; whitespace and spacing commands are skipped; a position no rule
// matches is an error (the package's error listener raises, so the match
// does not parse).

type tok int

const (
	tEOF tok = iota
	tTranspose
	tDegree
	tAdd
	tSub
	tMul
	tDiv
	tLParen
	tRParen
	tLParenVis
	tRParenVis
	tLGroup
	tRGroup
	tLBrace
	tRBrace
	tLBraceVis
	tRBraceVis
	tLBraceCmd
	tRBraceCmd
	tLBracket
	tRBracket
	tLBrack
	tRBrack
	tPhantom
	tBoxed
	tBar
	tLVert
	tRVert
	tVert
	tNorm
	tLAngle
	tRAngle
	tLFloor
	tRFloor
	tLLCorner
	tLRCorner
	tLCeil
	tRCeil
	tULCorner
	tURCorner
	tLim
	tLimApproach
	tInt
	tSum
	tProd
	tFuncSingle // \log \ln \exp \sin ... \det \Gamma (FUNC_* single-argument functions; \Gamma also FUNC_GAMMA)
	tFuncGamma  // \Gamma \gamma (FUNC_GAMMA)
	tFuncMulti  // \gcd \lcm \max \min
	tOpName     // operator names without backslash (gcd, floor, tr, ...): Text says which
	tSqrt
	tTimes
	tCdot
	tCmdDiv
	tFrac
	tBinom
	tChoose
	tMod
	tMathit
	tOperatorname
	tMatrixWord // matrix, pmatrix, bmatrix, vmatrix as plain words
	tMatrixStart
	tMatrixEnd
	tArrayStart
	tArrayEnd
	tDetStart
	tDetEnd
	tAmp
	tRowSep
	tUnderscore
	tCaret
	tColon
	tSemicolon
	tComma
	tPeriod
	tDifferential
	tExpE
	tENotationE
	tLetter
	tXRightArrow
	tTransformExchange
	tNumber
	tENotation
	tIn
	tAssign
	tEqual
	tApprox
	tLT
	tLTE
	tGT
	tGTE
	tUnequal
	tBang
	tPercentNumber
	tGreek
	tOtherSymbol
	tSymbol
	tSetLiteral // \mathbb{N} ... ∅: Text says which
	tAccent
	tUnion
	tIntersection
	tSetMinus
	tPlusMinus
	tSupset
	tSubset
	tNotIn
	tSkip
)

type token struct {
	t    tok
	text string
	pos  int
}

type lexRule struct {
	t     tok
	match func(s string) int // length of the longest match at the start of s, 0 if none
	first string             // the bytes a match can start with ("" = any)
}

var lexRules []lexRule

// rulesByFirst lists, per first byte, the rules (in order) that can match.
var rulesByFirst [256][]lexRule

func litMatcher(lits []string) func(string) int {
	return func(s string) int {
		best := 0
		for _, l := range lits {
			if len(l) > best && strings.HasPrefix(s, l) {
				best = len(l)
			}
		}
		return best
	}
}

func addLits(rs []litRule) {
	for _, r := range rs {
		var first []byte
		for _, l := range r.lits {
			first = append(first, l[0])
		}
		lexRules = append(lexRules, lexRule{r.t, litMatcher(r.lits), string(first)})
	}
}

func init() {
	addLits(litRules)
	lexRules = append(lexRules, lexRule{tArrayStart, matchArrayStart, "\\"})
	addLits(litRules2)
	lexRules = append(lexRules, lexRule{tDifferential, matchDifferential, "d"})
	addLits(litRules3)
	lexRules = append(lexRules, lexRule{tLetter, func(s string) int {
		if s != "" && isASCIILetter(s[0]) && s[0] != 'e' && s[0] != 'E' {
			return 1
		}
		return 0
	}, ""})
	addLits(litRules4)
	lexRules = append(lexRules, lexRule{tNumber, matchNumber, "0123456789."}, lexRule{tENotation, matchENotation, "0123456789."})
	addLits(litRules5)
	lexRules = append(lexRules, lexRule{tPercentNumber, matchPercentNumber, "0123456789."},
		lexRule{tGreek, withSpace(litMatcher(greekLetters)), ""}, lexRule{tOtherSymbol, withSpace(litMatcher(otherSymbols)), ""},
		lexRule{tSymbol, litMatcher([]string{"\\partial", "\\infty", "\\$\\infty", "\\infty\\%", "\\infty%"}), "\\"})
	addLits(litRules6)
	lexRules = append(lexRules, lexRule{tAccent, matchAccent, "\\"})
	addLits(litRules7)
	lexRules = append(lexRules, lexRule{tSkip, func(s string) int {
		n := 0
		for n < len(s) && isWS(s[n]) {
			n++
		}
		return n
	}, " \t\r\n"})
	for _, r := range lexRules {
		for c := 0; c < 256; c++ {
			if r.first == "" || strings.IndexByte(r.first, byte(c)) >= 0 {
				rulesByFirst[c] = append(rulesByFirst[c], r)
			}
		}
	}
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isWS(c byte) bool          { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func withSpace(m func(string) int) func(string) int {
	return func(s string) int {
		n := m(s)
		if n > 0 && n < len(s) && s[n] == ' ' {
			n++
		}
		return n
	}
}

func matchArrayStart(s string) int {
	const p = "\\begin{array}{"
	if !strings.HasPrefix(s, p) {
		return 0
	}
	i := len(p)
	for i < len(s) && (s[i] == 'c' || s[i] == 'l' || s[i] == 'r') {
		i++
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

func matchDifferential(s string) int {
	if s == "" || s[0] != 'd' {
		return 0
	}
	i := 1
	for i < len(s) && isWS(s[i]) {
		i++
	}
	if i < len(s) && isASCIILetter(s[i]) {
		return i + 1
	}
	if i+1 < len(s) && s[i] == '\\' && isASCIILetter(s[i+1]) {
		j := i + 1
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		return j
	}
	return 0
}

func matchNumber(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		return j
	}
	return i
}

func matchENotation(s string) int {
	n := matchNumber(s)
	if n == 0 || n >= len(s) || s[n] != 'E' {
		return 0
	}
	i := n + 1
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i {
		return 0
	}
	return j
}

func matchPercentNumber(s string) int {
	n := matchNumber(s)
	if n == 0 {
		return 0
	}
	for _, skip := range []int{0, 1} {
		i := n
		if skip == 1 {
			if i >= len(s) || !isWS(s[i]) {
				continue
			}
			i++
		}
		if strings.HasPrefix(s[i:], "\\%") {
			return i + 2
		}
		if strings.HasPrefix(s[i:], "%") {
			return i + 1
		}
	}
	return 0
}

func matchAccent(s string) int {
	if s == "" || s[0] != '\\' {
		return 0
	}
	best := 0
	for _, c := range accentCmds {
		if !strings.HasPrefix(s, c) {
			continue
		}
		i := len(c)
		if i < len(s) && isWS(s[i]) && i+1 < len(s) && s[i+1] == '{' {
			i++
		}
		if i >= len(s) || s[i] != '{' {
			continue
		}
		for j := i + 1; j < len(s); j++ {
			if s[j] == '}' {
				if j+1 > best {
					best = j + 1
				}
				break
			}
		}
	}
	return best
}

// lex splits s into tokens; ok=false on a character no rule matches.
func lex(s string) ([]token, bool) {
	var out []token
	for i := 0; i < len(s); {
		best, bestT := 0, tEOF
		rest := s[i:]
		for _, r := range rulesByFirst[s[i]] {
			if n := r.match(rest); n > best {
				best, bestT = n, r.t
			}
		}
		if best == 0 {
			return nil, false
		}
		if bestT != tSkip {
			out = append(out, token{bestT, s[i : i+best], i})
		}
		i += best
	}
	return append(out, token{t: tEOF, pos: len(s)}), true
}

// validUTF8 guards the lexer's byte offsets.
func validUTF8(s string) bool { return utf8.ValidString(s) }
