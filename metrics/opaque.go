package metrics

// Values computed by a task's own Python code (lm-eval's process_results,
// metric functions) can be anything Python has: a bool, a tuple, a dict, a
// numpy scalar. An opaque Value keeps such a value for the Python
// aggregation it goes back to, the form lm-eval's samples file writes it
// in, and, where it is a number, a pair or a text pair, that reading for
// goeval's own aggregations.

type opaque struct {
	view    Value // the number, pair or text pair it reads as (when hasView)
	hasView bool
	raw     any // the value as the Python worker carries it
	logged  any // the samples file's form (Py)
}

// Opaque is a value computed by Python: raw is what its worker carries
// (Raw gives it back), logged what Py returns, and view, when ok, the
// number or pair goeval's aggregations read (Float, Pair, Texts).
func Opaque(raw, logged any, view Value, ok bool) Value {
	return Value{kind: kindOpaque, opq: &opaque{view: view, hasView: ok, raw: raw, logged: logged}}
}

// Raw returns an opaque value's Python value; ok is false for the values
// goeval computes itself.
func (v Value) Raw() (raw any, ok bool) {
	if v.kind != kindOpaque {
		return nil, false
	}
	return v.opq.raw, true
}
