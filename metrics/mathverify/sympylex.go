package mathverify

import "strings"

// The lexer of sympy's LaTeX.g4 (sympy.parsing.latex, the ANTLR grammar
// parse_latex uses): ANTLR's longest match, the earlier rule on a tie,
// whitespace and spacing commands skipped, anything else a token
// recognition error (which parse_latex's error listener raises).

type stKind int

const (
	stEOF stKind = iota
	stErr        // a token recognition error: the parse fails when it is reached
	stAdd
	stSub
	stMul
	stDiv
	stLParen
	stRParen
	stLBrace
	stRBrace
	stLBraceLit
	stRBraceLit
	stLBracket
	stRBracket
	stBar
	stRBar
	stLBar
	stLAngle
	stRAngle
	stLim
	stLimApproach
	stInt
	stSum
	stProd
	stFunc // FUNC_EXP ... FUNC_ARTANH: text is the command
	stLFloor
	stRFloor
	stLCeil
	stRCeil
	stSqrt
	stOverline
	stTimes
	stCdot
	stDivCmd
	stFrac
	stBinom
	stMathit
	stUnderscore
	stCaret
	stColon
	stDifferential
	stLetter
	stDigit
	stEqual
	stNeq
	stLT
	stLTE
	stGT
	stGTE
	stBang
	stQuotes
	stSymbol
	stComma // the grammar's implicit ','
	stDot   // the grammar's implicit '.'
)

type sTok struct {
	k    stKind
	text string
}

// stSkip marks the commands the lexer skips.
const stSkip stKind = -1

// sympyCommands are the grammar's backslash literals.
var sympyCommands = map[string]stKind{
	`\,`: stSkip, `\thinspace`: stSkip, `\:`: stSkip, `\medspace`: stSkip, `\;`: stSkip, `\thickspace`: stSkip,
	`\quad`: stSkip, `\qquad`: stSkip, `\!`: stSkip, `\negthinspace`: stSkip, `\negmedspace`: stSkip,
	`\negthickspace`: stSkip, `\left`: stSkip, `\right`: stSkip, `\vrule`: stSkip, `\vcenter`: stSkip,
	`\vbox`: stSkip, `\vskip`: stSkip, `\vspace`: stSkip, `\hfil`: stSkip, `\*`: stSkip, `\-`: stSkip,
	`\.`: stSkip, `\/`: stSkip, `\"`: stSkip, `\(`: stSkip, `\=`: stSkip,
	`\{`: stLBraceLit, `\}`: stRBraceLit, `\right|`: stRBar, `\left|`: stLBar, `\langle`: stLAngle,
	`\rangle`: stRAngle, `\lim`: stLim, `\to`: stLimApproach, `\rightarrow`: stLimApproach,
	`\Rightarrow`: stLimApproach, `\longrightarrow`: stLimApproach, `\Longrightarrow`: stLimApproach,
	`\int`: stInt, `\int\limits`: stInt, `\sum`: stSum, `\prod`: stProd,
	`\lfloor`: stLFloor, `\rfloor`: stRFloor, `\lceil`: stLCeil, `\rceil`: stRCeil, `\sqrt`: stSqrt,
	`\overline`: stOverline, `\times`: stTimes, `\cdot`: stCdot, `\div`: stDivCmd, `\frac`: stFrac,
	`\dfrac`: stFrac, `\tfrac`: stFrac, `\binom`: stBinom, `\dbinom`: stBinom, `\tbinom`: stBinom,
	`\mathit`: stMathit, `\neq`: stNeq, `\leq`: stLTE, `\le`: stLTE, `\leqq`: stLTE, `\leqslant`: stLTE,
	`\geq`: stGTE, `\ge`: stGTE, `\geqq`: stGTE, `\geqslant`: stGTE,
}

// sympyFuncs are the grammar's func_normal commands.
var sympyFuncs = map[string]bool{
	"exp": true, "log": true, "lg": true, "ln": true, "sin": true, "cos": true, "tan": true, "csc": true,
	"sec": true, "cot": true, "arcsin": true, "arccos": true, "arctan": true, "arccsc": true, "arcsec": true,
	"arccot": true, "sinh": true, "cosh": true, "tanh": true, "arsinh": true, "arcosh": true, "artanh": true,
}

var sympyPunct = map[byte]stKind{
	'+': stAdd, '-': stSub, '*': stMul, '/': stDiv, '(': stLParen, ')': stRParen, '{': stLBrace,
	'}': stRBrace, '[': stLBracket, ']': stRBracket, '|': stBar, '_': stUnderscore, '^': stCaret,
	':': stColon, '!': stBang, '<': stLT, '>': stGT, ',': stComma, '.': stDot,
}

func isLexWS(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// sympyLex splits s into tokens; a recognition error ends the list with an
// stErr token (the parser fails only if it reads that far).
func sympyLex(s string) []sTok {
	var out []sTok
	for i := 0; i < len(s); {
		k, n := sympyToken(s, i)
		switch {
		case n == 0:
			return append(out, sTok{k: stErr})
		case k != stSkip:
			out = append(out, sTok{k: k, text: s[i : i+n]})
		}
		i += n
	}
	return append(out, sTok{k: stEOF})
}

// sympyToken is the token at s[i:] and its length (0: no rule matches).
func sympyToken(s string, i int) (stKind, int) {
	c := s[i]
	switch {
	case isLexWS(c):
		n := 1
		for i+n < len(s) && isLexWS(s[i+n]) {
			n++
		}
		return stSkip, n
	case c == '\\':
		return sympyCommand(s, i)
	case c == 'd':
		if n := differentialLen(s, i); n > 0 {
			return stDifferential, n
		}
		return stLetter, 1
	case isASCIILetter(c):
		return stLetter, 1
	case c >= '0' && c <= '9':
		return stDigit, 1
	case c == '&' || c == '=':
		return equalToken(s, i)
	case c == '\'':
		n := 1
		for i+n < len(s) && s[i+n] == '\'' {
			n++
		}
		return stQuotes, n
	}
	if k, ok := sympyPunct[c]; ok {
		return k, 1
	}
	return stErr, 0
}

// sympyCommand: the longest command literal against SYMBOL ('\' letters).
func sympyCommand(s string, i int) (stKind, int) {
	sym := 1
	for i+sym < len(s) && isASCIILetter(s[i+sym]) {
		sym++
	}
	best, bestK := 0, stErr
	for lit, k := range sympyCommands {
		if len(lit) > best && strings.HasPrefix(s[i:], lit) {
			best, bestK = len(lit), k
		}
	}
	if name := s[i+1 : i+sym]; sym > 1 && sym >= best && sympyFuncs[name] {
		return stFunc, sym
	}
	if best >= sym && best > 0 {
		return bestK, best
	}
	if sym > 1 {
		return stSymbol, sym
	}
	return stErr, 0
}

// differentialLen matches DIFFERENTIAL: 'd' WS* (letter | '\' letters).
func differentialLen(s string, i int) int {
	j := i + 1
	for j < len(s) && isLexWS(s[j]) {
		j++
	}
	if j < len(s) && isASCIILetter(s[j]) {
		return j + 1 - i
	}
	if j+1 < len(s) && s[j] == '\\' && isASCIILetter(s[j+1]) {
		k := j + 1
		for k < len(s) && isASCIILetter(s[k]) {
			k++
		}
		return k - i
	}
	return 0
}

// equalToken matches EQUAL: ('&' WS*)? '=' | '=' (WS* '&')?.
func equalToken(s string, i int) (stKind, int) {
	if s[i] == '&' {
		j := i + 1
		for j < len(s) && isLexWS(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '=' {
			return stEqual, j + 1 - i
		}
		return stErr, 0
	}
	j := i + 1
	for j < len(s) && isLexWS(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '&' {
		return stEqual, j + 1 - i
	}
	return stEqual, 1
}
