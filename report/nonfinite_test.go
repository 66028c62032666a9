package report

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// nanSample is a samples line of doc id with acc v (a json.Number as a
// file read back holds it: "NaN" for Python's NaN).
func nanSample(id int, v string) Sample {
	vals := py.NewMap[any]()
	vals.Set("acc", json.Number(v))
	return Sample{DocID: id, Filter: "none", Values: *vals}
}

// TestPairValuesLeavesOutNonFinite: docs whose value is NaN or ±Inf in
// either run are counted and not paired (a McNemar test over them would
// count NaN as wrong).
func TestPairValuesLeavesOutNonFinite(t *testing.T) {
	sa := []Sample{nanSample(0, "1"), nanSample(1, "NaN"), nanSample(2, "0"), nanSample(3, "1")}
	sb := []Sample{nanSample(0, "0"), nanSample(1, "1"), nanSample(2, "Infinity"), nanSample(3, "1")}
	a, b, mismatched, nonFinite := pairValues(sa, sb, "acc", "none")
	if len(a) != 2 || len(b) != 2 || mismatched != 0 || nonFinite != 2 {
		t.Fatalf("paired %d/%d, mismatched %d, non-finite %d; want 2 paired, 2 non-finite", len(a), len(b), mismatched, nonFinite)
	}
	if x, _ := a[0].Float(); x != 1 {
		t.Errorf("first pair = %v, want doc 0's 1", x)
	}
}

// TestCellTextNonFinite: a NaN or Inf value is printed as Python does,
// not as "-" (which means missing).
func TestCellTextNonFinite(t *testing.T) {
	for _, c := range []struct {
		cell Cell
		want string
	}{
		{Cell{Value: math.NaN(), OK: true, Stderr: math.NaN(), StderrOK: true}, "nan ±nan"},
		{Cell{Value: math.Inf(1), OK: true}, "inf"},
		{Cell{Value: math.Inf(-1), OK: true}, "-inf"},
		{Cell{}, "-"},
		{Cell{Value: 0.5, OK: true, Stderr: 0.1, StderrOK: true}, "0.5000 ±0.1000"},
	} {
		if got := cellText(c.cell); got != c.want {
			t.Errorf("cellText(%+v) = %q, want %q", c.cell, got, c.want)
		}
	}
}
