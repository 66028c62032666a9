package tasks

import (
	"math"
	"strconv"

	"github.com/goeval/goeval/internal/pyworker"
	"github.com/goeval/goeval/metrics"
)

// Per-document metric values between Python and metrics.Value.

// pyValue is a metric value computed by Python (raw, as the worker
// decodes it; logged, its samples-file form): ints and floats as
// goeval's own, anything else opaque — read as a number (a bool, a numpy
// scalar), a pair of numbers or a pair of strings where it is one.
func pyValue(raw, logged any) metrics.Value {
	switch x := raw.(type) {
	case int64:
		return metrics.Int(int(x))
	case float64:
		return metrics.Float(x)
	case bool:
		return metrics.Opaque(x, x, metrics.Bool(x), true)
	case pyworker.NumPy:
		f, ok := pyNumber(x)
		return metrics.Opaque(x, logged, metrics.Float(f), ok)
	case pyworker.Tuple:
		view, ok := pairView(x)
		return metrics.Opaque(x, logged, view, ok)
	case []any:
		view, ok := pairView(x)
		return metrics.Opaque(x, logged, view, ok)
	}
	return metrics.Opaque(raw, logged, metrics.Value{}, false)
}

// pairView reads a two-element sequence as a number pair or a text pair.
func pairView(l []any) (metrics.Value, bool) {
	if len(l) != 2 {
		return metrics.Value{}, false
	}
	a, okA := pyNumber(l[0])
	b, okB := pyNumber(l[1])
	if okA && okB {
		return metrics.Pair(a, b), true
	}
	sa, okA := l[0].(string)
	sb, okB := l[1].(string)
	if okA && okB {
		return metrics.Text(sa, sb), true
	}
	return metrics.Value{}, false
}

// pyNumber is a Python int, float, bool or numpy number as a float64.
func pyNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case pyworker.BigInt:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case pyworker.NumPy:
		return pyNumber(x.Value)
	}
	return 0, false
}

// pyOfValue is a per-document value as Python has it: Python's own value
// when Python computed it; goeval's ints and floats as ints and floats,
// a pair as a tuple (an integral element as an int: a gold index, a word
// or byte count), a text pair as a tuple of strings.
func pyOfValue(v metrics.Value) any {
	if raw, ok := v.Raw(); ok {
		return raw
	}
	if t, ok := v.Texts(); ok {
		return pyworker.Tuple{t[0], t[1]}
	}
	if p, ok := v.Pair(); ok {
		return pyworker.Tuple{intOrFloat(p[0]), intOrFloat(p[1])}
	}
	switch x := v.Py().(type) {
	case int:
		return int64(x)
	case float64:
		return x
	}
	f, _ := v.Float()
	return f
}

func intOrFloat(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// pyKind names a decoded Python value's type for errors.
func pyKind(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case pyworker.Tuple:
		return "a tuple"
	case pyworker.Dict:
		return "a dict"
	case pyworker.Set:
		return "a set"
	case pyworker.NumPy, pyworker.NDArray:
		return "a numpy value"
	case int64, pyworker.BigInt:
		return "an int"
	}
	return yamlKind(v)
}
