package jinja

import (
	"fmt"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// maxRepeatBytes bounds the string a template's `s * n` may build. gonja
// would make any size (a fuzzed chat template asked for 700 MB, which took
// seconds and the memory with it); real templates repeat indentation.
const maxRepeatBytes = 16 << 20

// repeatGuard is the filter guardRepeats puts on every `*`'s left operand.
const repeatGuard = "__goeval_repeat_guard"

// guardRepeats rewrites every `a * b` of the parsed template into
// `(a | repeatGuard(b)) * b`: the guard passes a through unless a is a
// string and b an integer whose product exceeds maxRepeatBytes. Unexported
// fields are walked too: {% set %} keeps its expression in one.
func guardRepeats(root any) {
	WalkNodes(root, true, func(x any) bool {
		be, ok := x.(*nodes.BinaryExpression)
		if !ok || be.Operator == nil || be.Operator.Token == nil || be.Operator.Token.Type != tokens.Multiply {
			return true
		}
		tok := &tokens.Token{Type: tokens.Name, Val: repeatGuard}
		if p := be.Left.Position(); p != nil {
			tok.Pos, tok.Line, tok.Col = p.Pos, p.Line, p.Col
		}
		be.Left = &nodes.FilteredExpression{Expression: be.Left,
			Filters: []*nodes.FilterCall{{Token: tok, Name: repeatGuard, Args: []nodes.Expression{be.Right}}}}
		return true // on into both operands (the right one is also the guard's argument: walked once)
	})
}

// filterRepeatGuard is repeatGuard: in * n must stay within maxRepeatBytes.
func filterRepeatGuard(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() || !in.IsString() || len(params.Args) != 1 {
		return in
	}
	n := params.Args[0]
	if n.IsError() || !n.IsInteger() || n.IsFloat() {
		return in
	}
	if k := n.Integer(); k > 0 && len(in.String()) > 0 && len(in.String()) > maxRepeatBytes/k {
		return exec.AsValue(fmt.Errorf("string repetition too big: %d × %d bytes exceeds the sandbox's %d", k, len(in.String()), maxRepeatBytes))
	}
	return in
}
