package pyworker

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// Error is a call that failed: in Python (an exception, a missing module,
// package or attribute, a hook that printed or returned what cannot
// cross) or around it (no interpreter, a timeout, a worker that died).
// Its message is one line.
type Error struct {
	// Kind: raised, no_module, no_package, no_attr, not_callable, arity,
	// stdout, value (Python side); no_python, start, timeout, exited,
	// closed (Go side).
	Kind    string
	Type    string // the exception's type (raised)
	Msg     string
	Where   string // file:line of the raising frame (raised)
	Package string // the module that could not be imported (no_package)
}

func (e *Error) Error() string {
	var s string
	if e.Kind == "raised" {
		s = "raised " + e.Type
		if e.Msg != "" {
			s += ": " + e.Msg
		}
		if e.Where != "" {
			s += " (" + e.Where + ")"
		}
	} else {
		s = e.Msg
	}
	return strings.Join(strings.Fields(s), " ")
}

// ErrorOf reads an error object of the worker (an answer's err, or a
// per-document error of a batch).
func ErrorOf(v any) *Error {
	m, ok := v.(*py.Map[any])
	if !ok {
		return &Error{Kind: "value", Msg: fmt.Sprintf("malformed error from the worker: %v", v)}
	}
	str := func(k string) string { s, _ := m.Value(k).(string); return s }
	return &Error{Kind: str("kind"), Type: str("type"), Msg: str("msg"), Where: str("where"), Package: str("package")}
}
