// Package jinja holds the limits goeval puts on Jinja templates it renders
// with gonja — chat templates (a model's file) and lm-eval task templates
// (a task file), both input: no template may load other files, recurse
// without bound or build huge ranges.
package jinja

import (
	"errors"
	"fmt"
	"math"

	"github.com/nikolalohinski/gonja/v2/builtins"
	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
)

// Limits on what a template may do, where gonja alone would crash the
// process or hang.
const (
	// maxRange is the longest range() a template may make, as in the
	// Jinja sandbox transformers renders with (jinja2.sandbox.MAX_RANGE).
	maxRange = 100_000
	// maxMacroDepth bounds macro recursion: unbounded, it overflows the
	// goroutine stack, which is fatal in Go (Python raises RecursionError).
	maxMacroDepth = 200
)

// ControlStructures are gonja's statements without the ones that load
// other templates (include, import, from, extends: transformers and lm-eval
// render with no loader, and here they would read any file on disk or
// include themselves forever), and with macro calls bounded in depth.
var ControlStructures = func() *exec.ControlStructureSet {
	m := map[string]parser.ControlStructureParser{"macro": boundedMacroParser}
	for _, name := range []string{"autoescape", "block", "filter", "for", "if", "raw", "set", "with", "do", "break", "continue", "trans", "call"} {
		p, ok := builtins.ControlStructures.Get(name)
		if !ok {
			panic("jinja: gonja has no " + name + " statement")
		}
		m[name] = p
	}
	return exec.NewControlStructureSet(m)
}()

// GuardKey names the per-render guard in the template data: every render
// must set it to a new NewGuard().
const GuardKey = "__goeval_render_guard"

// renderGuard is the state of one render that the limits need.
type renderGuard struct{ depth int }

// NewGuard is the state of one render (its data's GuardKey).
func NewGuard() any { return &renderGuard{} }

// boundedMacro is gonja's macro statement whose macro counts its calls in
// progress and fails beyond maxMacroDepth.
type boundedMacro struct {
	*controlStructures.MacroControlStructure
}

func boundedMacroParser(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
	builtin, _ := builtins.ControlStructures.Get("macro")
	cs, err := builtin(p, args)
	if err != nil {
		return nil, err
	}
	m, ok := cs.(*controlStructures.MacroControlStructure)
	if !ok {
		return nil, fmt.Errorf("gonja's macro statement is a %T", cs)
	}
	return &boundedMacro{m}, nil
}

// Execute defines the macro as gonja does, then wraps it with the depth
// check of this render's guard.
func (b *boundedMacro) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	if err := b.MacroControlStructure.Execute(r, tag); err != nil {
		return err
	}
	v, _ := r.Environment.Context.Get(b.Name)
	g, _ := r.Environment.Context.Get(GuardKey)
	fn, ok := v.(exec.Macro)
	guard, ok2 := g.(*renderGuard)
	if !ok || !ok2 {
		return fmt.Errorf("macro %s: cannot bound its recursion", b.Name)
	}
	r.Environment.Context.Set(b.Name, exec.Macro(func(params *exec.VarArgs) *exec.Value {
		if guard.depth >= maxMacroDepth {
			return exec.AsValue(fmt.Errorf("macro %s: recursion deeper than %d calls", b.Name, maxMacroDepth))
		}
		guard.depth++
		defer func() { guard.depth-- }()
		return fn(params)
	}))
	return nil
}

// Range is Jinja's sandboxed range([start,] stop[, step]): a list,
// refused beyond maxRange items. (gonja's own range feeds a channel from a
// goroutine that leaks when a loop stops early, and takes seconds for 10^8
// items.)
func Range(_ *exec.Evaluator, params *exec.VarArgs) ([]int, error) {
	a := make([]int, len(params.Args))
	for i, v := range params.Args {
		if !v.IsInteger() {
			return nil, errors.New("range: arguments must be integers")
		}
		a[i] = v.Integer()
	}
	start, stop, step := 0, 0, 1
	switch len(a) {
	case 1:
		stop = a[0]
	case 2:
		start, stop = a[0], a[1]
	case 3:
		start, stop, step = a[0], a[1], a[2]
	default:
		return nil, errors.New("range: expected [start, ]stop[, step]")
	}
	if step == 0 {
		return nil, errors.New("range: step cannot be 0")
	}
	n := 0 // len(range(start, stop, step)), in float64 so no bound overflows
	if d := (float64(stop) - float64(start)) / float64(step); d > 0 {
		if d > maxRange {
			return nil, fmt.Errorf("range too big: the sandbox blocks ranges larger than %d", maxRange)
		}
		n = int(math.Ceil(d))
	}
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return out, nil
}
