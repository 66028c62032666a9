package metrics

import (
	"math"

	"github.com/goeval/goeval/internal/py"
)

// Value is one document's value of one metric, as a task's process_results
// returns it: a number, or a pair for the corpus-level aggregations —
// (loglikelihood, weight) for weighted_perplexity and bits_per_byte,
// (gold, pred) for f1 and matthews_corrcoef. A number remembers whether
// lm-eval's Python code returns an int or a float, because the samples file
// writes 1 and 1.0 differently. The zero Value is the float 0.
type Value struct {
	a, b float64
	kind valueKind
	text *[2]string // kindText: (reference, prediction)
	opq  *opaque    // kindOpaque
}

type valueKind uint8

const (
	kindFloat valueKind = iota
	kindInt
	kindPair
	kindText
	kindOpaque
)

// Float is a float metric value (Python float).
func Float(x float64) Value { return Value{a: x} }

// Int is an integer metric value (Python int, e.g. exact_match's 0/1 where
// lm-eval returns an int).
func Int(n int) Value { return Value{a: float64(n), kind: kindInt} }

// Bool is Python's int(b): 1 or 0, an integer value.
func Bool(b bool) Value {
	if b {
		return Int(1)
	}
	return Int(0)
}

// Pair is a corpus-level pair value: (loglikelihood, weight) or (gold, pred).
func Pair(a, b float64) Value { return Value{a: a, b: b, kind: kindPair} }

// Text is a (reference, prediction) pair of strings, the per-document value
// of the corpus-level bleu and chrf aggregations.
func Text(ref, pred string) Value { return Value{kind: kindText, text: &[2]string{ref, pred}} }

// IsPair reports whether v is a pair.
func (v Value) IsPair() bool {
	if v.kind == kindOpaque {
		return v.opq.hasView && v.opq.view.IsPair()
	}
	return v.kind == kindPair
}

// Texts returns a text pair's reference and prediction; ok is false for
// numbers and number pairs.
func (v Value) Texts() (t [2]string, ok bool) {
	if v.kind == kindOpaque {
		if !v.opq.hasView {
			return t, false
		}
		return v.opq.view.Texts()
	}
	if v.kind != kindText {
		return t, false
	}
	return *v.text, true
}

// Float returns a number value as a float64; ok is false for a pair.
func (v Value) Float() (x float64, ok bool) {
	if v.kind == kindOpaque {
		if !v.opq.hasView {
			return 0, false
		}
		return v.opq.view.Float()
	}
	return v.a, v.kind != kindPair && v.kind != kindText
}

// Pair returns a pair value's two elements; ok is false for a number.
func (v Value) Pair() (p [2]float64, ok bool) {
	if v.kind == kindOpaque {
		if !v.opq.hasView {
			return p, false
		}
		return v.opq.view.Pair()
	}
	return [2]float64{v.a, v.b}, v.kind == kindPair
}

// Py is the value as lm-eval's samples file holds it: a float64, an int,
// or for a pair a two-element list whose second element is an int when it
// is integral (Python's (ll, len(words)) tuple).
func (v Value) Py() any {
	switch v.kind {
	case kindOpaque:
		return v.opq.logged
	case kindText:
		return []any{v.text[0], v.text[1]}
	case kindInt:
		return int(v.a)
	case kindPair:
		if v.b == math.Trunc(v.b) && math.Abs(v.b) < 1<<53 {
			return []any{v.a, int64(v.b)}
		}
		return []any{v.a, v.b}
	}
	return v.a
}

// ParseValue reads a per-document metric value from a decoded samples file
// (a number, a bool, or a two-number list). Numbers become floats, since a
// file read back does not need the int spelling.
func ParseValue(x any) (Value, bool) {
	if f, ok := py.ToFloat(x); ok {
		return Float(f), true
	}
	if list, ok := x.([]any); ok && len(list) == 2 {
		if r, isStr := list[0].(string); isStr {
			p, isStr := list[1].(string)
			return Text(r, p), isStr
		}
		a, okA := py.ToFloat(list[0])
		b, okB := py.ToFloat(list[1])
		return Pair(a, b), okA && okB
	}
	return Value{}, false
}
