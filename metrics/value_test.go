package metrics

import (
	"encoding/json"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// TestValuePySpelling: the samples file writes ints as ints, floats in
// repr and a weighted pair's integral weight as an int.
func TestValuePySpelling(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want string
	}{
		{Float(1), "1.0"}, {Int(1), "1"}, {Bool(false), "0"}, {Float(0.25), "0.25"},
		{Pair(-12.5, 3051), "[-12.5, 3051]"}, {Pair(-1, 2.5), "[-1.0, 2.5]"}, {Value{}, "0.0"},
	} {
		b, err := py.JSON(c.v.Py(), false)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v → %s (%v), want %s", c.v, b, err, c.want)
		}
	}
}

func TestParseValue(t *testing.T) {
	if v, ok := ParseValue(json.Number("1")); !ok || v != Float(1) {
		t.Errorf("number: %+v %v", v, ok)
	}
	if v, ok := ParseValue([]any{json.Number("-3.5"), json.Number("7")}); !ok || v != Pair(-3.5, 7) {
		t.Errorf("pair: %+v %v", v, ok)
	}
	for _, bad := range []any{"N/A", []any{1.0}, []any{"x", 1.0}, nil} {
		if _, ok := ParseValue(bad); ok {
			t.Errorf("ParseValue(%v) accepted", bad)
		}
	}
}
