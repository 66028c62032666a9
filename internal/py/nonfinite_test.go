package py

import (
	"math"
	"testing"
)

// TestNonFiniteRoundTrip reads Python's NaN/Infinity/-Infinity tokens (and
// leaves the same words inside strings alone) and writes them back as
// Python's json.dumps does.
func TestNonFiniteRoundTrip(t *testing.T) {
	in := `{"acc,none": NaN, "ppl": Infinity, "ll": [-Infinity, 1.5], "s": "NaN \"Infinity\" -Infinity", "n": 3}`
	v, err := ParseJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(*Map[any])
	if x, ok := m.Float("acc,none"); !ok || !math.IsNaN(x) {
		t.Errorf("acc,none = %v %v, want NaN", x, ok)
	}
	if x, ok := m.Float("ppl"); !ok || !math.IsInf(x, 1) {
		t.Errorf("ppl = %v %v, want +Inf", x, ok)
	}
	if x, ok := ToFloat(m.Value("ll").([]any)[0]); !ok || !math.IsInf(x, -1) {
		t.Errorf("ll[0] = %v %v, want -Inf", x, ok)
	}
	if s := m.Value("s"); s != `NaN "Infinity" -Infinity` {
		t.Errorf("string changed: %q", s)
	}
	out, err := JSON(m, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("round trip:\n got %s\nwant %s", out, in)
	}
	var typed Map[*Map[any]]
	if err := typed.UnmarshalJSON([]byte(`{"t": {"x": -Infinity}}`)); err != nil {
		t.Fatal(err)
	}
	if x, _ := typed.Value("t").(*Map[any]).Float("x"); !math.IsInf(x, -1) {
		t.Errorf("nested typed map: x = %v, want -Inf", x)
	}
	f, err := JSON([]any{math.NaN(), math.Inf(1), math.Inf(-1)}, false)
	if err != nil || string(f) != "[NaN, Infinity, -Infinity]" {
		t.Errorf("JSON(floats) = %s, %v", f, err)
	}
}
