package tasks

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/nikolalohinski/gonja/v2/builtins"
	jcfg "github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"

	"github.com/goeval/goeval/internal/jinja"
	"github.com/goeval/goeval/internal/py"
)

// Jinja templates of lm-eval task YAML (doc_to_text, doc_to_target,
// doc_to_choice, description, …), rendered as lm-eval's utils.apply_template
// does: jinja2 with StrictUndefined (an unknown name is an error),
// keep_trailing_newline, a regex_replace filter, the document's fields as
// variables — and Python's semantics where gonja's differ:
//
//   - every {{ … }} prints Python's str() of its value, so a list prints as
//     ['a', "don't"] (lm-eval then parses it back with ast.literal_eval);
//   - str methods (strip, split, replace, …) and list.index/count behave as
//     Python's, with their optional arguments (jinja_methods.go).

var (
	jinjaOnce sync.Once
	jinjaEnv  *exec.Environment
	jinjaCfg  *jcfg.Config
	jinjaTpls = &jinja.Cache{Prefix: "task"}
)

const pyStrFilter = "goeval_pystr"

func jinjaEnvironment() (*exec.Environment, *jcfg.Config) {
	jinjaOnce.Do(func() {
		cfg := jcfg.New()
		cfg.StrictUndefined, cfg.KeepTrailingNewline = true, true
		filters := exec.NewFilterSet(map[string]exec.FilterFunction{
			"regex_replace": filterRegexReplace,
			pyStrFilter:     filterPyStr,
		})
		jinjaEnv = &exec.Environment{
			Context: exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables).
				Update(exec.NewContext(map[string]any{"range": jinja.Range})),
			Filters:           builtins.Filters.Update(filters),
			Tests:             builtins.Tests,
			ControlStructures: jinja.ControlStructures,
			Methods:           pyMethods(),
		}
		jinjaCfg = cfg
	})
	return jinjaEnv, jinjaCfg
}

// compileJinja parses src once (cached by content) and wraps every output
// expression in the Python str() filter.
func compileJinja(src string) (*exec.Template, error) {
	env, cfg := jinjaEnvironment()
	tpl, err := jinjaTpls.Parse(src, cfg, env, func(t *exec.Template) {
		wrapOutputs(t.Root())
	})
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", src, err)
	}
	return tpl, nil
}

// renderJinja renders src with doc's fields as variables; order is the
// dataset's field order of its nested mappings (table.Keys: dotted path →
// fields; nil when unknown, then sorted), which iterating or printing a
// mapping follows, as Python's dicts do. gonja panics on some inputs; a
// panic is returned as an error, since templates are input.
func renderJinja(src string, doc Doc, order map[string][]string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("template %q: %v", src, r)
		}
	}()
	tpl, err := compileJinja(src)
	if err != nil {
		return "", err
	}
	data := make(map[string]any, len(doc)+1)
	for k, v := range doc {
		data[k] = jinjaValue(v, k, order)
	}
	data[jinja.GuardKey] = jinja.NewGuard()
	out, err = tpl.ExecuteToString(exec.NewContext(data))
	if err != nil {
		return "", fmt.Errorf("template %q: %s", src, jinjaError(err, doc))
	}
	return out, nil
}

// gonjaNoise are the parts of gonja's error chain that only describe its
// own evaluation steps.
var gonjaNoise = regexp.MustCompile(`^(unable to execute template|Unable to render expression at line \d+|filtered_expression\(.*\)|unable to evaluate filter &\{.*\}|invalid call to filter '` + pyStrFilter + `'|Unable to execute controlStructure at line \d+|\w+ControlStructure\(.*\))$`)

var undefinedName = regexp.MustCompile(`^Unable to evaluate name "(.*)"$`)

// jinjaError keeps the informative parts of a gonja error and says which
// fields the document has when the template names one it lacks.
func jinjaError(err error, doc Doc) string {
	var keep []string
	for _, part := range strings.Split(err.Error(), ": ") {
		if !gonjaNoise.MatchString(part) {
			keep = append(keep, part)
		}
	}
	msg := strings.Join(keep, ": ")
	if m := undefinedName.FindStringSubmatch(msg); m != nil {
		keys := make([]string, 0, len(doc))
		for k := range doc {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Sprintf("%q is not defined: the document's fields are %s", m[1], strings.Join(keys, ", "))
	}
	return msg
}

// wrapOutputs pipes each {{ expr }} of the parsed template (control
// structures' bodies included; not the bodies of {% set %} blocks, which
// gonja prints itself) through pyStrFilter.
func wrapOutputs(root any) {
	jinja.WalkNodes(root, false, func(x any) bool {
		if out, ok := x.(*nodes.Output); ok {
			wrapOutput(out)
			return false
		}
		return true
	})
}

func wrapOutput(o *nodes.Output) {
	call := func(e nodes.Expression) nodes.Expression {
		if e == nil {
			return nil
		}
		tok := &tokens.Token{Type: tokens.Name, Val: pyStrFilter}
		if p := e.Position(); p != nil {
			tok.Pos, tok.Line, tok.Col = p.Pos, p.Line, p.Col
		}
		return &nodes.FilteredExpression{Expression: e, Filters: []*nodes.FilterCall{{Token: tok, Name: pyStrFilter}}}
	}
	o.Expression, o.Alternative = call(o.Expression), call(o.Alternative)
}

// filterPyStr prints a value as Python's str() does.
func filterPyStr(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	s, err := py.StrValue(goValue(in))
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsSafeValue(s)
}

// jinjaValue gives the mappings inside v (at dotted path) gonja's ordered
// Dict, fields in the dataset's order (the rest sorted), so iterating,
// joining and printing them follows Python's dict order.
func jinjaValue(v any, path string, order map[string][]string) any {
	switch x := v.(type) {
	case map[string]any:
		d := exec.Dict{}
		for _, k := range keyOrder(x, order[path]) {
			d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(k), Value: exec.AsValue(jinjaValue(x[k], joinPath(path, k), order))})
		}
		return d
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jinjaValue(e, path, order)
		}
		return out
	}
	return v
}

// goValue converts a gonja value back to plain Go values (lists as []any,
// ordered Dicts as *py.Map).
func goValue(v *exec.Value) any {
	if v == nil || v.IsNil() {
		return nil
	}
	if d, ok := v.Interface().(exec.Dict); ok {
		m := py.NewMap[any]()
		for _, p := range d.Pairs {
			m.Set(p.Key.String(), goValue(p.Value))
		}
		return m
	}
	if v.IsList() {
		out := make([]any, 0, v.Len())
		v.Iterate(func(_, _ int, key, _ *exec.Value) bool {
			out = append(out, goValue(key))
			return true
		}, func() {})
		return out
	}
	return v.Interface()
}

// filterRegexReplace is lm-eval's regex_replace(string, pattern, repl,
// count=0): Python's re.sub.
func filterRegexReplace(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	var pattern, repl string
	var count int
	if err := params.Take(
		exec.PositionalArgument("pattern", nil, exec.StringArgument(&pattern)),
		exec.PositionalArgument("repl", nil, exec.StringArgument(&repl)),
		exec.PositionalArgument("count", exec.AsValue(0), exec.IntArgument(&count)),
	); err != nil {
		return exec.AsValue(exec.ErrInvalidCall(err))
	}
	re, err := py.Compile(pattern)
	if err != nil {
		return exec.AsValue(fmt.Errorf("regex_replace: %w", err))
	}
	return exec.AsValue(re.SubN(in.String(), repl, count))
}
