package jinja

import (
	"strings"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Jinja allows a conditional expression, x if c else y, wherever an
// expression goes; gonja parses one only as the whole of a {{ }} output or
// of a {% set %} value, and fails ("Unbalanced parenthesis") on one inside
// brackets, as Gemma 3's chat template writes it:
//
//	{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else "") }}
//
// Conditionals rewrites every conditional expression inside (), [] or {}
// into an expression gonja parses, with the same value and the same lazy
// evaluation — Python's and/or idiom:
//
//	x if c else y  →  ((c) and [(x)] or [(y)])[0]
//
// [(x)] is a one-element list, so true even when x is false; gonja's and
// and or return one of their operands and evaluate the right one only when
// the left does not decide (Jinja's semantics), so c is evaluated first and
// then exactly one of x and y. Without else, y is an undefined name (Jinja's
// value of the missing branch). The else branch may itself be a conditional
// (x if c else y if d else z, right-associative as in Jinja); c and x cannot
// (Jinja parses them as or-expressions). Conditionals at the top of a tag
// are gonja's own and stay as they are, like a for loop's filter
// ({% for m in ms if c %}).
//
// Only the bracketed expressions change: text, whitespace control and
// everything else keep their bytes, and a template without such a
// conditional (or one gonja's lexer rejects) comes back unchanged, so
// gonja reports its errors as before.
func Conditionals(src string, cfg *config.Config) string {
	norm := strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	c := cfg.Inherit()
	c.KeepTrailingNewline = true // positions index norm itself
	r, ok := newCondRewriter(norm, c)
	if !ok || !r.nested {
		return src
	}
	var b strings.Builder
	at := 0
	for i := 0; i < len(r.toks); i++ {
		if j, open := r.match[i]; open {
			b.WriteString(norm[at:r.pos(i)])
			b.WriteString(r.group(i))
			at, i = r.pos(j)+1, j
		}
	}
	b.WriteString(norm[at:])
	return b.String()
}

// undefinedName is the value of a conditional without else whose condition
// is false: a name no template defines.
const undefinedName = "__goeval_undefined"

// condRewriter holds a template's tokens (without whitespace) and its
// bracket pairs.
type condRewriter struct {
	src    string
	toks   []*tokens.Token
	match  map[int]int // opening bracket's token index → its closing one's
	nested bool        // an if inside brackets
}

// newCondRewriter lexes src and pairs its brackets; ok is false on a
// lexing error or unbalanced brackets.
func newCondRewriter(src string, cfg *config.Config) (*condRewriter, bool) {
	r := &condRewriter{src: src, match: map[int]int{}}
	for s := tokens.LexAll(src, cfg); ; s.Next() {
		t := s.Current()
		if t.Type == tokens.Error {
			return nil, false
		}
		r.toks = append(r.toks, t)
		if t.Type == tokens.EOF {
			break
		}
	}
	closer := map[tokens.Type]tokens.Type{tokens.LeftParenthesis: tokens.RightParenthesis,
		tokens.LeftBracket: tokens.RightBracket, tokens.LeftBrace: tokens.RightBrace}
	var stack []int
	for i, t := range r.toks {
		switch t.Type {
		case tokens.LeftParenthesis, tokens.LeftBracket, tokens.LeftBrace:
			stack = append(stack, i)
		case tokens.RightParenthesis, tokens.RightBracket, tokens.RightBrace:
			if len(stack) == 0 || closer[r.toks[stack[len(stack)-1]].Type] != t.Type {
				return nil, false
			}
			r.match[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		case tokens.VariableEnd, tokens.BlockEnd:
			if len(stack) > 0 {
				return nil, false
			}
		case tokens.Name:
			r.nested = r.nested || (len(stack) > 0 && t.Val == "if")
		}
	}
	return r, len(stack) == 0
}

// pos is token i's offset in src.
func (r *condRewriter) pos(i int) int { return r.toks[i].Pos }

// is reports whether token i is the keyword name.
func (r *condRewriter) is(i int, name string) bool {
	return r.toks[i].Type == tokens.Name && r.toks[i].Val == name
}

// group rewrites the bracket group opened by token i: each of its items
// (split at its own commas and colons; a call's keyword argument from
// after its =) is rewritten by part.
func (r *condRewriter) group(i int) string {
	j := r.match[i]
	var b strings.Builder
	b.WriteString(r.src[r.pos(i):r.pos(i+1)])
	start := i + 1
	for k := i + 1; k <= j; k++ {
		if end, open := r.match[k]; open {
			k = end
			continue
		}
		if t := r.toks[k].Type; k < j && t != tokens.Comma && t != tokens.Colon {
			continue
		}
		a := start
		if a+1 < k && r.toks[a].Type == tokens.Name && r.toks[a+1].Type == tokens.Assign {
			b.WriteString(r.src[r.pos(a):r.pos(a+2)])
			a += 2
		}
		b.WriteString(r.part(a, k))
		if k < j {
			b.WriteString(r.src[r.pos(k):r.pos(k+1)])
		}
		start = k + 1
	}
	b.WriteByte(r.src[r.pos(j)])
	return b.String()
}

// part rewrites the expression of tokens [a, b) (src[pos(a):pos(b)]): a
// conditional at its level becomes the and/or form, nested groups are
// rewritten by group.
func (r *condRewriter) part(a, b int) string {
	at, els := r.find(a, b, "if"), -1
	if at < 0 || at == a {
		return r.plain(a, b)
	}
	if els = r.find(at+1, b, "else"); els < 0 {
		els = b
	}
	y := undefinedName
	if els < b {
		y = r.part(els+1, b)
	}
	x, c := strings.TrimSpace(r.plain(a, at)), strings.TrimSpace(r.plain(at+1, els))
	return "((" + c + ") and [(" + x + ")] or [(" + strings.TrimSpace(y) + ")])[0]"
}

// find returns the index of keyword name in [a, b) outside nested groups,
// or -1.
func (r *condRewriter) find(a, b int, name string) int {
	for k := a; k < b; k++ {
		if end, open := r.match[k]; open {
			k = end
		} else if r.is(k, name) {
			return k
		}
	}
	return -1
}

// plain is src[pos(a):pos(b)] with its nested groups rewritten.
func (r *condRewriter) plain(a, b int) string {
	if a >= b {
		return ""
	}
	var out strings.Builder
	at := r.pos(a)
	for k := a; k < b; k++ {
		if end, open := r.match[k]; open {
			out.WriteString(r.src[at:r.pos(k)])
			out.WriteString(r.group(k))
			at, k = r.pos(end)+1, end
		}
	}
	out.WriteString(r.src[at:r.pos(b)])
	return out.String()
}
